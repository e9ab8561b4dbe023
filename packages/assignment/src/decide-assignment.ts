import type { FederatedHPASpec } from '@flotilla/api';
import { isReady, type Cluster, type ResourceList, type TargetCluster } from '@flotilla/scheduling';
import { assignmentsEqual, bindingClustersEqual } from './assignment-diff.js';
import { assignMinMax } from './assign.js';
import { candidateClusters } from './candidates.js';
import { clusterFacts } from './cluster-facts.js';
import { memberReplicas } from './member-replicas.js';
import type { BindingCluster, MemberAssignment } from './types.js';

export interface AssignmentInput {
  /** The admitted FederatedHPA's spec (defaults applied). */
  spec: FederatedHPASpec;
  /** Every known Cluster, with status (conditions and resourceSummary). */
  clusters: readonly Cluster[];
  /** The target's ResourceBinding spec.clusters: where it runs now and with how many replicas. */
  bindingClusters: readonly TargetCluster[];
  /** The target's per-replica pod requests, for the estimator. */
  podRequests?: ResourceList;
  /** The member HPAs written last time; absent on the first assignment. */
  previous?: readonly MemberAssignment[];
}

/**
 * Why the assignment is (re)written: the first one; a previously assigned cluster is gone or NotReady (failover);
 * anything else that moved the split (the FederatedHPA, the candidate clusters, their capacity); or nothing.
 */
export type AssignmentReason = 'Initial' | 'Failover' | 'Reassigned' | 'Unchanged';

export interface AssignmentDecision {
  assignments: MemberAssignment[];
  bindingClusters: BindingCluster[];
  reason: AssignmentReason;
  /** False when writing the result would change neither a member HPA nor the binding. */
  changed: boolean;
  /** Candidate clusters left out because they are not Ready. */
  failedOver: string[];
}

/**
 * The FederatedHPA assignment of Karmada's FederatedHPA proposal, pure: split min/max over the Ready candidate
 * clusters by the policy, and bind each cluster's workload to its current replicas clamped into its member HPA.
 * Level-triggered: run it on a FederatedHPA change, a candidate change or a cluster failure alike.
 */
export function decideAssignment(input: AssignmentInput): AssignmentDecision {
  const { spec } = input;
  const candidates = candidateClusters(spec, input.clusters, input.bindingClusters);
  const policy = spec.federatedHPAAssignment?.federatedHPAAssignmentType ?? 'Duplicated';
  const facts = clusterFacts(spec, candidates.ready, input.podRequests, { forAssignment: true });
  const assignments = assignMinMax(
    policy,
    { minReplicas: spec.minReplicas ?? 1, maxReplicas: spec.maxReplicas },
    facts,
  );
  const current = new Map(input.bindingClusters.map((t) => [t.name, t.replicas ?? 0]));
  const scalingToZero = spec.scalingToZero === true;
  const bindingClusters = assignments.map((a) => ({
    name: a.cluster,
    replicas: memberReplicas(current.get(a.cluster) ?? 0, a.minReplicas, a.maxReplicas, scalingToZero),
  }));
  const changed =
    !input.previous ||
    !assignmentsEqual(input.previous, assignments) ||
    !bindingClustersEqual(input.bindingClusters, bindingClusters);
  return {
    assignments,
    bindingClusters,
    reason: reasonFor(input.previous, assignments, changed, input.clusters),
    changed,
    failedOver: candidates.notReady,
  };
}

function reasonFor(
  previous: readonly MemberAssignment[] | undefined,
  next: readonly MemberAssignment[],
  changed: boolean,
  clusters: readonly Cluster[],
): AssignmentReason {
  if (!previous) return 'Initial';
  if (!changed) return 'Unchanged';
  const assigned = new Set(next.map((a) => a.cluster));
  const byName = new Map(clusters.map((c) => [c.metadata.name ?? '', c]));
  const lost = previous.some((a) => {
    if (assigned.has(a.cluster)) return false;
    const c = byName.get(a.cluster);
    return !c || !isReady(c);
  });
  return lost ? 'Failover' : 'Reassigned';
}
