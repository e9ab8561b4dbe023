/** What the TTL asks of a finished rebalancer at `now`. */
export type TtlOutcome = { delete: true } | { delete: false; requeueAfterMs: number | null };

/**
 * Karmada's TTL after finishing (as Kubernetes' TTL-after-finished for Jobs): unset never deletes; otherwise the
 * rebalancer goes `ttlSecondsAfterFinished` after `finishTime`, at once for 0, and for a negative value too (Karmada
 * admits those and treats them as 0). Without a finishTime there is nothing to count from.
 */
export function ttlOutcome(ttlSeconds: number | undefined, finishTime: string | undefined, now: Date): TtlOutcome {
  if (ttlSeconds === undefined || finishTime === undefined) return { delete: false, requeueAfterMs: null };
  const remaining = Date.parse(finishTime) + Math.max(0, ttlSeconds) * 1000 - now.getTime();
  return remaining > 0 ? { delete: false, requeueAfterMs: remaining } : { delete: true };
}
