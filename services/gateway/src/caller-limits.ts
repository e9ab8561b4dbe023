import { TooManyRequestsError } from './errors.js';

/** What one caller of the HTTP API may ask of the gateway. */
export interface CallerLimitsOptions {
  /** Requests one caller may have open at once, event streams included. */
  maxInFlight: number;
  /** Requests per second one caller may make, on average. */
  ratePerSecond: number;
  /** Requests one caller may make at once beyond the rate (a token bucket of this size, full at first). */
  burst: number;
  /** Milliseconds of a monotonic clock; for tests. */
  now?: () => number;
}

/**
 * A dashboard tab makes a handful of reads per page and holds one event stream; ten tabs of one person (or, without
 * tokens, every local client: they share the address 127.0.0.1) stay far below these. A client in a loop does not.
 */
export const CALLER_LIMIT_DEFAULTS = { maxInFlight: 64, ratePerSecond: 100, burst: 200 } as const;

/** Callers remembered before those with nothing in flight and a full bucket are forgotten (they are as new ones). */
const SWEEP_AT = 1024;

interface CallerState {
  inFlight: number;
  /** Requests the caller may still make now (the bucket's level when `at`). */
  tokens: number;
  at: number;
}

/**
 * Per caller (a token's name, or a remote address where there is no token), the requests in flight and a token
 * bucket of requests per second. Past either, `admit` throws TooManyRequestsError with the seconds to wait, which the
 * HTTP API answers `429 Too Many Requests` with `Retry-After`.
 */
export class CallerLimits {
  private readonly callers = new Map<string, CallerState>();
  private readonly o: Required<CallerLimitsOptions>;

  constructor(opts: Partial<CallerLimitsOptions> = {}) {
    this.o = { ...CALLER_LIMIT_DEFAULTS, now: () => performance.now(), ...opts };
    for (const k of ['maxInFlight', 'ratePerSecond', 'burst'] as const)
      if (!(Number.isInteger(this.o[k]) && this.o[k] > 0))
        throw new RangeError(`CallerLimits: ${k} must be a positive integer, not ${this.o[k]}`);
  }

  /** Takes one request of `caller`'s share; call the returned function once its response has ended. */
  admit(caller: string): () => void {
    const now = this.o.now();
    if (this.callers.size >= SWEEP_AT) this.sweep(now);
    const s = this.callers.get(caller) ?? { inFlight: 0, tokens: this.o.burst, at: now };
    this.callers.set(caller, s);
    s.tokens = Math.min(this.o.burst, s.tokens + ((now - s.at) / 1000) * this.o.ratePerSecond);
    s.at = now;
    if (s.inFlight >= this.o.maxInFlight)
      throw new TooManyRequestsError(
        `${describe(caller)} has ${s.inFlight} requests in flight, the most one caller may have at once`,
        1,
      );
    if (s.tokens < 1)
      throw new TooManyRequestsError(
        `${describe(caller)} made more than ${this.o.ratePerSecond} requests a second (a burst of ${this.o.burst} at most)`,
        Math.max(1, Math.ceil((1 - s.tokens) / this.o.ratePerSecond)),
      );
    s.tokens -= 1;
    s.inFlight++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      s.inFlight--;
    };
  }

  private sweep(now: number): void {
    for (const [caller, s] of this.callers)
      if (s.inFlight === 0 && s.tokens + ((now - s.at) / 1000) * this.o.ratePerSecond >= this.o.burst)
        this.callers.delete(caller);
  }
}

/** Callers are keyed `token:<name>` or `address:<remote address>`. */
const describe = (caller: string) =>
  caller.startsWith('token:') ? `"${caller.slice(6)}"` : `the address ${caller.replace(/^address:/, '')}`;
