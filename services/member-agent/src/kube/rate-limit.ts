/**
 * client-go's token bucket (`--kube-api-qps` / `--kube-api-burst`): `burst` writes at once, then `qps` per second.
 * Pure: the caller passes the time and waits the returned delay.
 */
export class TokenBucket {
  private tokens: number;
  private lastMs: number | undefined;

  constructor(
    readonly qps: number,
    readonly burst: number,
  ) {
    if (!(qps > 0)) throw new RangeError(`qps: expected a positive number, got ${qps}`);
    if (!Number.isInteger(burst) || burst < 1) throw new RangeError(`burst: expected an integer >= 1, got ${burst}`);
    this.tokens = burst;
  }

  /** Takes one token at `nowMs`; returns how long to wait before using it (0 when one was available). */
  take(nowMs: number): number {
    if (this.lastMs !== undefined)
      this.tokens = Math.min(this.burst, this.tokens + ((nowMs - this.lastMs) * this.qps) / 1000);
    this.lastMs = nowMs;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens * 1000) / this.qps);
  }
}

/** Runs `work` over `items` with at most `concurrency` in flight; resolves with each outcome in order. */
export async function mapLimited<T, R>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<R>,
): Promise<Array<PromiseSettledResult<R>>> {
  const out = new Array<PromiseSettledResult<R>>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      try {
        out[i] = { status: 'fulfilled', value: await work(items[i]!) };
      } catch (reason) {
        out[i] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, lane));
  return out;
}
