import type { Taint, Toleration } from './types.js';

/** Kubernetes' Toleration.ToleratesTaint (without the Lt/Gt extension Karmada leaves disabled). */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  if (!t.key && t.operator !== 'Exists') return false;
  if (t.operator === 'Exists') return true;
  if (t.operator === undefined || t.operator === '' || t.operator === 'Equal')
    return (t.value ?? '') === (taint.value ?? '');
  return false;
}

/** The taint as Kubernetes prints it: `key=value:Effect`. */
export function taintToString(taint: Taint): string {
  let s = taint.key;
  if (taint.value) s += `=${taint.value}`;
  if (taint.effect) s += `:${taint.effect}`;
  return s;
}

/** First NoSchedule / NoExecute taint no toleration accepts, as the TaintToleration filter uses. */
export function findUntoleratedTaint(
  taints: readonly Taint[] | undefined,
  tolerations: readonly Toleration[] | undefined,
): Taint | undefined {
  if (!taints) return undefined;
  for (const taint of taints) {
    if (taint.effect !== 'NoSchedule' && taint.effect !== 'NoExecute') continue;
    if (!tolerations?.some((t) => toleratesTaint(t, taint))) return taint;
  }
  return undefined;
}

/**
 * For a cluster that already runs the workload: the NoExecute taint that evicts it at `now`, if
 * any (see evictionTime).
 */
export function findEvictingTaint(
  taints: readonly Taint[] | undefined,
  tolerations: readonly Toleration[] | undefined,
  now: Date,
): Taint | undefined {
  if (!taints) return undefined;
  const t = now.getTime();
  return taints.find((taint) => evictionTime(taint, tolerations) <= t);
}

/**
 * When the earliest NoExecute taint that has not evicted yet will evict (epoch ms), or undefined
 * when none ever will as things stand: the moment to look again at a binding on that cluster.
 */
export function nextEvictionTime(
  taints: readonly Taint[] | undefined,
  tolerations: readonly Toleration[] | undefined,
  now: Date,
): number | undefined {
  let next = Infinity;
  for (const taint of taints ?? []) {
    const at = evictionTime(taint, tolerations);
    if (at > now.getTime() && at < next) next = at;
  }
  return Number.isFinite(next) ? next : undefined;
}

/**
 * When a taint evicts a workload already on the cluster (epoch ms): untolerated NoExecute → at
 * once (-Infinity); tolerated with `tolerationSeconds` → that many seconds after the taint's
 * `timeAdded` (the shortest matching toleration wins, as in Kubernetes' taint manager);
 * tolerated without seconds, or not NoExecute → never (Infinity).
 */
export function evictionTime(taint: Taint, tolerations: readonly Toleration[] | undefined): number {
  if (taint.effect !== 'NoExecute') return Infinity;
  const matching = (tolerations ?? []).filter((t) => toleratesTaint(t, taint));
  if (matching.length === 0) return -Infinity;
  let seconds = Infinity;
  for (const t of matching)
    if (t.tolerationSeconds !== undefined && t.tolerationSeconds < seconds) seconds = t.tolerationSeconds;
  if (seconds === Infinity) return Infinity;
  if (seconds <= 0) return -Infinity;
  const added = taint.timeAdded ? Date.parse(taint.timeAdded) : NaN;
  // Without a timeAdded the grace period has not visibly started, so the toleration still holds.
  return Number.isFinite(added) ? added + seconds * 1000 : Infinity;
}
