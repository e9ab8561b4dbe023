import { splitByPolicy } from './assign.js';
import { byClusterName } from './preference-order.js';
import type { AssignmentPolicy, ClusterFacts, MemberAssignment } from './types.js';

export interface RunningMember extends ClusterFacts {
  minReplicas: number;
  maxReplicas: number;
  currentReplicas: number;
}

export interface MaxOptimisation {
  assignments: MemberAssignment[];
  /** Σ(max − current): the headroom that was re-split. */
  pool: number;
  changed: boolean;
}

/**
 * The periodic max optimisation of Karmada's FederatedHPA proposal: the headroom Σ(max − current) is taken back
 * and re-split by the policy (weights, availability or priority order) on top of each cluster's current replicas,
 * so headroom follows where the policy wants growth now; the total max is unchanged. A cluster below its min
 * (scaled to zero) first gets back what keeps its max at or above its min. Duplicated copies the max, so it has
 * nothing to re-split.
 */
export function optimiseMax(policy: AssignmentPolicy, members: readonly RunningMember[]): MaxOptimisation {
  const unchanged = members.map(asAssignment).sort(byClusterName);
  let pool = 0;
  for (const m of members) pool += Math.max(0, m.maxReplicas - m.currentReplicas);
  if (policy === 'Duplicated' || members.length === 0) return { assignments: unchanged, pool, changed: false };
  const floor = new Map(members.map((m) => [m.name, Math.max(0, m.minReplicas - m.currentReplicas)]));
  let reserved = 0;
  for (const v of floor.values()) reserved += v;
  const shares = splitByPolicy(policy, Math.max(0, pool - reserved), members);
  const assignments = members
    .map((m) => ({
      cluster: m.name,
      minReplicas: m.minReplicas,
      maxReplicas: m.currentReplicas + floor.get(m.name)! + (shares.get(m.name) ?? 0),
    }))
    .sort(byClusterName);
  const changed = assignments.some((a, i) => a.maxReplicas !== unchanged[i]!.maxReplicas);
  return { assignments, pool, changed };
}

function asAssignment(m: RunningMember): MemberAssignment {
  return { cluster: m.name, minReplicas: m.minReplicas, maxReplicas: m.maxReplicas };
}
