import { formatTime } from '@flotilla/api/core';
import type { Cluster, Taint } from './types.js';

/** Karmada's taints for a cluster whose Ready condition is False, or Unknown. */
export const NOT_READY_TAINT = 'cluster.karmada.io/not-ready';
export const UNREACHABLE_TAINT = 'cluster.karmada.io/unreachable';

/**
 * Karmada's failover eviction timeout (FAILOVER_GRACE_MS), defined once: the affinity scheduler's taint manager waits
 * this long, and the gateway's preview of a cluster failure assumes the same wait.
 */
export const DEFAULT_FAILOVER_GRACE_MS = 30_000;

export interface TaintDecision {
  /** The taints spec.taints should hold now (undefined: leave them as they are). */
  taints?: Taint[];
  /** When to look again: the grace period of a not-ready cluster has not run out yet. */
  recheckAfterMs?: number;
}

/**
 * Failover's first step (Karmada's cluster taint manager): once a cluster has not been Ready for `graceMs`,
 * it gets a NoExecute taint, which evicts bindings that do not tolerate it; a Ready cluster loses those taints.
 * Pure: `now` and the cluster (with status) are passed in.
 */
export function decideTaints(cluster: Cluster, now: Date, graceMs: number): TaintDecision {
  const current = cluster.spec?.taints ?? [];
  const ready = cluster.status?.conditions?.find((c) => c.type === 'Ready');
  const ours = (t: Taint) => (t.key === NOT_READY_TAINT || t.key === UNREACHABLE_TAINT) && t.effect === 'NoExecute';
  if (!ready || ready.status === 'True') {
    return current.some(ours) ? { taints: current.filter((t) => !ours(t)) } : {};
  }
  const since = ready.lastTransitionTime ? Date.parse(ready.lastTransitionTime) : now.getTime();
  const remaining = since + graceMs - now.getTime();
  if (remaining > 0) return { recheckAfterMs: remaining };
  const key = ready.status === 'False' ? NOT_READY_TAINT : UNREACHABLE_TAINT;
  if (current.some((t) => t.key === key && t.effect === 'NoExecute')) return {};
  const kept = current.filter((t) => !ours(t));
  return { taints: [...kept, { key, effect: 'NoExecute', timeAdded: formatTime(now) }] };
}

/** Karmada's cordon (`karmadactl cordon`): new replicas are no longer placed on the cluster; running ones stay. */
export const UNSCHEDULABLE_TAINT = 'cluster.karmada.io/unschedulable';
