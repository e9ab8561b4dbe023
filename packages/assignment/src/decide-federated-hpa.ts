import type { FederatedHPASpec } from '@flotilla/api';
import { isReady, type Cluster, type ResourceList } from '@flotilla/scheduling';
import { assignmentsEqual, bindingClustersEqual } from './assignment-diff.js';
import { clusterFacts } from './cluster-facts.js';
import { decideAssignment, type AssignmentReason } from './decide-assignment.js';
import { memberReplicas } from './member-replicas.js';
import { optimiseMax } from './optimise-max.js';
import { byClusterName } from './preference-order.js';
import { scaleDownOrder } from './scale-down-order.js';
import { scaleToZero } from './scale-to-zero.js';
import { scaleUpAcross, type MaxMove } from './scale-up-across.js';
import type { BindingCluster, MemberAssignment } from './types.js';

/** What one member cluster reports about its copy of the target (the binding's aggregatedStatus entry). */
export interface MemberStatus {
  cluster: string;
  /** The member workload's spec.replicas, as its member HPA set it. */
  specReplicas: number;
  readyReplicas: number;
  pendingReplicas: number;
}

/** What the hpa-assigner recorded with the last assignment it wrote. */
export interface RecordedAssignment {
  assignments: MemberAssignment[];
  /** `assignmentBasis` of the inputs the last policy split was made from. */
  basis: string;
  /** When the max was last optimised (ms since the epoch). */
  optimisedAtMs?: number;
  /** Clusters held at their current replicas while a less preferred one scales down: their assigned min. */
  pinned?: Record<string, number>;
}

export interface FederatedHpaState {
  spec: FederatedHPASpec;
  /** The FederatedHPA's metadata.generation: a spec change (a CronFederatedHPA setting min/max too) moves it. */
  generation: number;
  /** Every known Cluster with its status. */
  clusters: readonly Cluster[];
  /** The clusters the scheduler's filter keeps for the target, used when the FederatedHPA has no clusterAffinity. */
  candidates: readonly string[];
  podRequests?: ResourceList;
  members: readonly MemberStatus[];
  /** The target binding's spec.clusters as stored, to tell whether a re-split changes it. */
  bindingClusters?: ReadonlyArray<{ name: string; replicas?: number }>;
  previous?: RecordedAssignment;
  /** Clusters whose pods have been pending for autoscaleMultiClusterDelay (the caller keeps that timer). */
  starved: ReadonlySet<string>;
  /**
   * The federation's utilisation (the member HPAs' own, weighted by their replicas) and the FederatedHPA's target, in
   * percent; scaling to and from zero (`scalingToZero`) needs it and is skipped without it.
   */
  utilisation?: { current: number; target: number };
  /** How often the max is re-split (Karmada's FederatedHPA proposal: "every period"). */
  optimisePeriodMs: number;
}

export type FederatedHpaReason =
  | AssignmentReason
  | 'ScaledUpAcross'
  | 'ScaledDownByPriority'
  | 'ScaledToZero'
  | 'ScaledFromZero'
  | 'MaxOptimised';

export interface FederatedHpaDecision {
  assignments: MemberAssignment[];
  /** The target's binding clusters with each member workload's replicas. */
  bindingClusters: BindingCluster[];
  reason: FederatedHpaReason;
  /** False when nothing is to be written. */
  changed: boolean;
  moves: MaxMove[];
  /** To record with the assignment (see RecordedAssignment). */
  basis: string;
  optimisedAtMs?: number;
  failedOver: string[];
  /** One line for the event and `describe`: why the assignment is what it is. */
  message: string;
  /** To record with the assignment: the assigned min of each cluster whose min holds it at its replicas. */
  pinned?: Record<string, number>;
}

/**
 * What the policy split depends on: the FederatedHPA's spec (its generation) and the candidate clusters with their
 * readiness. While it holds, the split is not redone, so the moves made by scaling across clusters stay.
 */
export function assignmentBasis(
  state: Pick<FederatedHpaState, 'generation' | 'clusters' | 'candidates' | 'spec'>,
): string {
  const readiness = [...candidateReadiness(state)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${state.generation}|${readiness.map(([n, r]) => `${n}:${r}`).join(',')}`;
}

/** The candidate clusters by name: every known cluster with clusterAffinity (it selects), else the scheduler's. */
function candidateReadiness(
  state: Pick<FederatedHpaState, 'clusters' | 'candidates' | 'spec'>,
): Map<string, 'ready' | 'notready' | 'unknown'> {
  const ready = new Map(state.clusters.map((c) => [c.metadata.name ?? '', isReady(c) ? 'ready' : 'notready'] as const));
  const names = state.spec.clusterAffinity ? [...ready.keys()] : state.candidates;
  return new Map(names.map((n) => [n, ready.get(n) ?? 'unknown']));
}

/**
 * One pass of the FederatedHPA assignment controller, pure (Karmada's FederatedHPA proposal, decentralized design):
 * 1. when the basis moved (a FederatedHPA change, a candidate change, a cluster failing or coming back), split
 *    min/max again by the policy (`decideAssignment`);
 * 2. otherwise scale across clusters: a starved cluster's unusable max goes to the next preferred cluster;
 * 3. otherwise, under Prioritized with no pod pending, scale down lowest priority first: the clusters more preferred
 *    than the one scaling down are held at their replicas (their min raised, the assigned min recorded in `pinned`),
 *    and — with every member at or above its min and a period after the last split or move — a less preferred
 *    cluster at its min hands its max back to the most preferred;
 * 4. otherwise, with `scalingToZero` and the federation's utilisation known, scale one cluster to zero (or back);
 * 5. otherwise, once per optimise period and while no pods pend, re-split the headroom (`optimiseMax`); a fresh
 *    split or a move across clusters starts the period afresh.
 */
export function decideFederatedHpa(state: FederatedHpaState, nowMs: number): FederatedHpaDecision {
  const basis = assignmentBasis(state);
  const current = new Map(state.members.map((m) => [m.cluster, m]));
  const bound = new Map((state.bindingClusters ?? []).map((c) => [c.name, c.replicas ?? 0]));
  // A member not reported yet (just bound) runs what its binding asks for.
  const replicasOf = (name: string) => current.get(name)?.specReplicas ?? bound.get(name) ?? 0;
  const scalingToZero = state.spec.scalingToZero === true;
  const previous = state.previous;
  if (!previous || previous.basis !== basis) {
    const d = decideAssignment({
      spec: state.spec,
      clusters: state.clusters,
      bindingClusters: state.candidates.map((name) => ({ name, replicas: replicasOf(name) })),
      ...(state.podRequests ? { podRequests: state.podRequests } : {}),
      ...(previous ? { previous: previous.assignments } : {}),
    });
    // decideAssignment compares with the candidates it was given; what counts is the binding as stored.
    const moved =
      !previous ||
      !assignmentsEqual(previous.assignments, d.assignments) ||
      (state.bindingClusters !== undefined && !bindingClustersEqual(state.bindingClusters, d.bindingClusters));
    const reason: FederatedHpaReason = moved ? d.reason : 'Unchanged';
    return {
      assignments: d.assignments,
      bindingClusters: d.bindingClusters,
      reason,
      // The basis is recorded even when the split is the same, so the next pass can scale across.
      changed: moved || previous?.basis !== basis,
      moves: [],
      basis,
      // A fresh split is where the policy wants the headroom: the next optimisation is a period away.
      optimisedAtMs: d.changed || previous === undefined ? nowMs : (previous.optimisedAtMs ?? nowMs),
      failedOver: d.failedOver,
      message: assignmentMessage(reason, d.assignments, d.failedOver),
    };
  }

  const policy = state.spec.federatedHPAAssignment?.federatedHPAAssignmentType ?? 'Duplicated';
  // The assignment without holds: every plan below starts from it, so any other change releases them.
  const held = previous.pinned ?? {};
  const assigned = new Map(
    previous.assignments.map((a) => [
      a.cluster,
      held[a.cluster] === undefined ? a : { ...a, minReplicas: held[a.cluster]! },
    ]),
  );
  const readiness = candidateReadiness(state);
  const readyCandidates = state.clusters.filter((c) => readiness.get(c.metadata.name ?? '') === 'ready');
  const facts = clusterFacts(state.spec, readyCandidates, state.podRequests);
  const members = facts.map((f) => {
    const a = assigned.get(f.name);
    const m = current.get(f.name);
    return {
      ...f,
      minReplicas: a?.minReplicas ?? 0,
      maxReplicas: a?.maxReplicas ?? 0,
      readyReplicas: m?.readyReplicas ?? 0,
      currentReplicas: a ? replicasOf(f.name) : 0,
    };
  });
  const unchanged = (): FederatedHpaDecision => ({
    assignments: previous.assignments,
    bindingClusters: bindingOf(previous.assignments, replicasOf, scalingToZero, new Map()),
    reason: 'Unchanged',
    changed: false,
    moves: [],
    basis,
    ...(previous.optimisedAtMs !== undefined ? { optimisedAtMs: previous.optimisedAtMs } : {}),
    ...(previous.pinned ? { pinned: previous.pinned } : {}),
    failedOver: [],
    message: 'the assignment holds',
  });
  const result = (
    reason: FederatedHpaReason,
    assignments: MemberAssignment[],
    moves: MaxMove[],
    scaled: BindingCluster[],
    message: string,
    optimisedAtMs = previous.optimisedAtMs,
    pinned?: Record<string, number>,
  ): FederatedHpaDecision => ({
    ...(pinned && Object.keys(pinned).length ? { pinned } : {}),
    assignments,
    bindingClusters: bindingOf(
      assignments,
      replicasOf,
      scalingToZero,
      new Map(scaled.map((s) => [s.name, s.replicas])),
    ),
    reason,
    changed: true,
    moves,
    basis,
    ...(optimisedAtMs !== undefined ? { optimisedAtMs } : {}),
    failedOver: [],
    message,
  });
  if (policy === 'Duplicated') return unchanged();

  if (state.starved.size > 0) {
    const plan = scaleUpAcross(members, state.starved);
    if (plan.changed) {
      const text = plan.moves.map((m) => `${m.replicas} max from ${m.from} to ${m.to}`).join(', ');
      const message = `pods pending past the delay: ${text}`;
      // The optimisation would hand the freed max back by the policy's order: it waits a period after a move.
      return result('ScaledUpAcross', plan.assignments, plan.moves, plan.scaled, message, nowMs);
    }
  }
  // While pods pend somewhere the cross-cluster scale-up owns the headroom. A member below its min has not caught
  // up with its assignment yet (a cluster raised from 0 a moment ago): scaling down is for settled load only.
  const pending = state.members.some((m) => m.pendingReplicas > 0);
  const running = members.filter((m) => assigned.has(m.name));
  const settled = !pending && running.every((m) => m.currentReplicas >= m.minReplicas);
  // A period since the last split or move: a cluster that just received max sits at its min until its member HPA
  // acts, and handing that max straight back to the cluster that could not use it would undo the move.
  const due = previous.optimisedAtMs === undefined || nowMs - previous.optimisedAtMs >= state.optimisePeriodMs;
  if (policy === 'Prioritized' && !pending) {
    // Scale down lowest priority first: the clusters more preferred than the one scaling down are held at their
    // replicas (their member HPA's min raised to them); a less preferred cluster at its min hands its max back.
    const plan = scaleDownOrder(running);
    const handBack = plan.changed && settled && due;
    const base = handBack
      ? plan.assignments
      : running.map((m) => ({ cluster: m.name, minReplicas: m.minReplicas, maxReplicas: m.maxReplicas }));
    const holds = new Map(plan.pinned.map((p) => [p.name, p.replicas]));
    const pinned: Record<string, number> = {};
    const next = base
      .map((a) => {
        const at = holds.get(a.cluster);
        const min = at === undefined ? a.minReplicas : Math.min(Math.max(at, a.minReplicas), a.maxReplicas);
        if (min === a.minReplicas) return a;
        pinned[a.cluster] = a.minReplicas;
        return { ...a, minReplicas: min };
      })
      .sort(byClusterName);
    if (!assignmentsEqual(next, previous.assignments)) {
      const holding = Object.keys(pinned);
      const message = handBack
        ? 'the less preferred clusters reached their min; their max went back to the most preferred cluster'
        : holding.length
          ? `holding ${holding.map((c) => `${c} at ${holds.get(c)}`).join(', ')} while ${plan.scalingDown} scales down`
          : `${plan.scalingDown ?? 'no cluster'} scales down now; the holds are released`;
      return result('ScaledDownByPriority', next, [], [], message, handBack ? nowMs : previous.optimisedAtMs, pinned);
    }
  }
  if (state.utilisation && !pending) {
    const z = scaleToZero({
      policy,
      scalingToZero,
      federationMin: state.spec.minReplicas ?? 1,
      utilisation: state.utilisation.current,
      targetUtilisation: state.utilisation.target,
      members: running,
    });
    if (z.action !== 'None') {
      const names = z.scaled.map((c) => c.name).join(', ');
      const message =
        z.action === 'ScaleToZero'
          ? `utilisation ${state.utilisation.current}% below ${state.utilisation.target}% with every cluster at its min: ${names} to 0`
          : `utilisation ${state.utilisation.current}% above ${state.utilisation.target}%: ${names} back from 0`;
      return result(
        z.action === 'ScaleToZero' ? 'ScaledToZero' : 'ScaledFromZero',
        previous.assignments,
        [],
        z.scaled,
        message,
      );
    }
  }
  if (due && !pending) {
    const opt = optimiseMax(policy, running);
    const moved = opt.changed && !assignmentsEqual(opt.assignments, previous.assignments);
    if (moved) {
      return result(
        'MaxOptimised',
        opt.assignments,
        [],
        [],
        `the headroom of ${opt.pool} was re-split by ${policy}`,
        nowMs,
      );
    }
    // Nothing moved: the time is still recorded, so the next optimisation waits a whole period.
    return { ...unchanged(), changed: true, optimisedAtMs: nowMs, message: 'the max optimisation moved nothing' };
  }
  return unchanged();
}

function bindingOf(
  assignments: readonly MemberAssignment[],
  replicasOf: (cluster: string) => number,
  scalingToZero: boolean,
  scaled: Map<string, number>,
): BindingCluster[] {
  return assignments
    .map((a) => ({
      name: a.cluster,
      replicas:
        scaled.get(a.cluster) ?? memberReplicas(replicasOf(a.cluster), a.minReplicas, a.maxReplicas, scalingToZero),
    }))
    .sort((x, y) => byClusterName({ cluster: x.name }, { cluster: y.name }));
}

function assignmentMessage(reason: FederatedHpaReason, assignments: readonly MemberAssignment[], failedOver: string[]) {
  const table = assignments.map((a) => `${a.cluster} ${a.minReplicas}-${a.maxReplicas}`).join(', ') || 'no cluster';
  switch (reason) {
    case 'Initial':
      return `assigned ${table}`;
    case 'Failover':
      return `cluster(s) ${failedOver.join(', ')} not ready; their share moved: ${table}`;
    case 'Reassigned':
      return `the FederatedHPA or its candidate clusters changed: ${table}`;
    default:
      return `the assignment holds: ${table}`;
  }
}
