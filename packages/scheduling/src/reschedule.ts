import { isDeepStrictEqual } from 'node:util';
import { APPLIED_PLACEMENT_ANNOTATION } from '@flotilla/api/core';
import { scheduleMode } from './schedule.js';
import { resolveStrategy } from './strategy.js';
import { findEvictingTaint, nextEvictionTime } from './taints.js';
import type {
  Cluster,
  ClusterAffinityTerm,
  Placement,
  ResourceBinding,
  ResourceBindingSpec,
  TargetCluster,
} from './types.js';

// Defined with the API's other annotations; exported here too, where its users have always found it.
export { APPLIED_PLACEMENT_ANNOTATION };

/** Why a binding is scheduled again; see scheduleTrigger. */
export type ScheduleTrigger =
  | 'PlacementChanged'
  | 'ReplicasChanged'
  | 'ClusterEvicted'
  | 'RescheduleRequested'
  | 'AlwaysScheduled';

/**
 * Karmada's doScheduleBinding: whether a queued binding is scheduled at all, and why. Without a
 * reason its spec.clusters stand, so a Divided workload does not move because a cluster stopped
 * matching, recovered or changed capacity. Duplicated and non-workload bindings (no replicas) are
 * scheduled whenever they are queued.
 *
 * Failover reaches Divided workloads as upstream's taint manager does: a target cluster that is gone,
 * being deleted, or evicts the workload by a NoExecute taint no longer counts towards the assignment,
 * so the replicas no longer add up (upstream removes it from spec.clusters; here scheduling does,
 * since the filters reject that cluster for this binding).
 */
export function scheduleTrigger(
  binding: ResourceBinding,
  clusters: readonly Cluster[],
  now: Date,
): ScheduleTrigger | undefined {
  const spec = binding.spec;
  const applied = binding.metadata.annotations?.[APPLIED_PLACEMENT_ANNOTATION];
  if (placementChanged(spec.placement, applied, binding.status?.schedulerObservingAffinityName))
    return 'PlacementChanged';
  const targets = spec.clusters ?? [];
  if (replicasChanged(spec, targets)) return 'ReplicasChanged';
  if (replicasChanged(spec, remainingTargets(binding, clusters, now))) return 'ClusterEvicted';
  if (scheduleMode(binding) === 'Fresh') return 'RescheduleRequested';
  if (!spec.replicas || isDuplicated(spec.placement)) return 'AlwaysScheduled';
  return undefined;
}

/**
 * Karmada's placementChanged. No record → changed; an unreadable record → unchanged (upstream logs
 * and goes on); a change outside clusterAffinities → changed; within clusterAffinities only the
 * observed group counts (changed, removed, or no group observed yet): adding, editing or removing
 * another group moves nothing.
 */
export function placementChanged(
  placement: Placement | undefined,
  applied: string | undefined,
  observedGroup: string | undefined,
): boolean {
  if (!applied) return true;
  // The common case, the record written from this very placement, needs no parse.
  if (applied === appliedPlacement(placement)) return false;
  let old: unknown;
  try {
    old = JSON.parse(applied);
  } catch {
    return false;
  }
  if (typeof old !== 'object' || old === null || Array.isArray(old)) return false;
  const { clusterAffinities: terms, ...rest } = plain(placement ?? {});
  const { clusterAffinities: oldTerms, ...oldRest } = old as Placement;
  if (!isDeepStrictEqual(rest, oldRest)) return true;
  if (isDeepStrictEqual(terms, oldTerms)) return false;
  if (!observedGroup) return true;
  const term = findTerm(terms, observedGroup);
  const oldTerm = findTerm(oldTerms, observedGroup);
  return !term || !oldTerm || !isDeepStrictEqual(term, oldTerm);
}

/** The annotation value that records `placement` as applied. */
export function appliedPlacement(placement: Placement | undefined): string {
  return JSON.stringify(placement ?? {});
}

/** Karmada's IsBindingReplicasChanged: Divided → the targets no longer add up to spec.replicas; Duplicated → one differs. */
export function replicasChanged(spec: ResourceBindingSpec, targets: readonly TargetCluster[]): boolean {
  const desired = spec.replicas ?? 0;
  if (isDuplicated(spec.placement)) return targets.some((t) => (t.replicas ?? 0) !== desired);
  let sum = 0;
  for (const t of targets) sum += t.replicas ?? 0;
  return sum !== desired;
}

/** spec.clusters without the clusters that no longer hold the workload: gone, being deleted, or evicting it by taint. */
export function remainingTargets(binding: ResourceBinding, clusters: readonly Cluster[], now: Date): TargetCluster[] {
  const targets = binding.spec.clusters ?? [];
  if (targets.length === 0) return [];
  const byName = clusterIndex(clusters);
  const tolerations = binding.spec.placement?.clusterTolerations;
  return targets.filter((t) => {
    const c = byName.get(t.name);
    return (
      c !== undefined &&
      !c.metadata.deletionTimestamp &&
      findEvictingTaint(c.spec?.taints, tolerations, now) === undefined
    );
  });
}

/**
 * Milliseconds until a toleration's seconds run out on one of the binding's clusters (the moment its
 * replicas must move), or undefined when nothing is pending.
 */
export function evictionRecheckMs(
  binding: ResourceBinding,
  clusters: readonly Cluster[],
  now: Date,
): number | undefined {
  const targets = binding.spec.clusters ?? [];
  if (targets.length === 0) return undefined;
  const byName = clusterIndex(clusters);
  let next: number | undefined;
  for (const t of targets) {
    const at = nextEvictionTime(byName.get(t.name)?.spec?.taints, binding.spec.placement?.clusterTolerations, now);
    if (at !== undefined && (next === undefined || at < next)) next = at;
  }
  return next === undefined ? undefined : next - now.getTime();
}

function isDuplicated(placement: Placement | undefined): boolean {
  try {
    return resolveStrategy(placement?.replicaScheduling) === 'Duplicated';
  } catch {
    // An unsupported strategy fails every attempt, so its placement is never recorded as applied and it is retried anyway.
    return false;
  }
}

function findTerm(terms: readonly ClusterAffinityTerm[] | undefined, name: string): ClusterAffinityTerm | undefined {
  return terms?.find((t) => t.affinityName === name);
}

// Callers pass the same cluster list to every decision until a cluster changes (the service caches it and builds a
// new list on a change; lists are never changed in place), so one index per list serves them all.
const indexes = new WeakMap<readonly Cluster[], Map<string, Cluster>>();

function clusterIndex(clusters: readonly Cluster[]): Map<string, Cluster> {
  let m = indexes.get(clusters);
  if (!m) {
    m = new Map();
    for (const c of clusters) if (c.metadata.name) m.set(c.metadata.name, c);
    indexes.set(clusters, m);
  }
  return m;
}

// The stored record went through JSON: compare like with like (no undefined-valued keys).
function plain(p: Placement): Placement {
  return JSON.parse(JSON.stringify(p)) as Placement;
}
