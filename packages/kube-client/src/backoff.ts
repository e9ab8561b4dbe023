/** Exponential backoff: the first delay, doubled per consecutive failure up to the last. */
export interface Backoff {
  baseMs: number;
  maxMs: number;
}

/** Delay before retry `attempt` (0-based): exponential from `baseMs` up to `maxMs`, with ±50 % jitter. */
export function backoffDelay(attempt: number, opts: Backoff, random: () => number): number {
  const exp = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.min(attempt, 30));
  return Math.round(exp * (0.5 + random()));
}
