import { byClusterName } from './preference-order.js';
import type { BindingCluster, MemberAssignment } from './types.js';

export interface AssignmentDiff {
  /** Clusters that get a member HPA they did not have. */
  added: MemberAssignment[];
  /** Clusters whose member HPA goes away. */
  removed: MemberAssignment[];
  /** Clusters whose member HPA min or max changes: the new values. */
  updated: MemberAssignment[];
}

/** What writing `next` over `previous` changes; order-insensitive, results by cluster name. */
export function diffAssignments(
  previous: readonly MemberAssignment[],
  next: readonly MemberAssignment[],
): AssignmentDiff {
  const before = new Map(previous.map((a) => [a.cluster, a]));
  const after = new Map(next.map((a) => [a.cluster, a]));
  const diff: AssignmentDiff = { added: [], removed: [], updated: [] };
  for (const a of next) {
    const b = before.get(a.cluster);
    if (!b) diff.added.push(a);
    else if (b.minReplicas !== a.minReplicas || b.maxReplicas !== a.maxReplicas) diff.updated.push(a);
  }
  for (const b of previous) if (!after.has(b.cluster)) diff.removed.push(b);
  diff.added.sort(byClusterName);
  diff.removed.sort(byClusterName);
  diff.updated.sort(byClusterName);
  return diff;
}

/** Whether two assignment lists hold the same min/max per cluster, whatever their order. */
export function assignmentsEqual(a: readonly MemberAssignment[], b: readonly MemberAssignment[]): boolean {
  if (a.length !== b.length) return false;
  const d = diffAssignments(a, b);
  return d.added.length === 0 && d.removed.length === 0 && d.updated.length === 0;
}

/** Whether two binding cluster lists place the same replicas on the same clusters, whatever their order. */
export function bindingClustersEqual(
  a: ReadonlyArray<{ name: string; replicas?: number }>,
  b: readonly BindingCluster[],
): boolean {
  if (a.length !== b.length) return false;
  const before = new Map(a.map((t) => [t.name, t.replicas ?? 0]));
  return b.every((t) => before.get(t.name) === t.replicas);
}
