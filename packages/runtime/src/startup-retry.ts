import pRetry from 'p-retry';
import type { Logger } from 'pino';
import type { ReadinessGates } from './readiness-gates.js';

/** How long a service keeps trying its first connections before it exits (STARTUP_CONNECT_MS). */
export const DEFAULT_STARTUP_CONNECT_MS = 60_000;

export interface StartupRetryOptions {
  /** The readiness gate that names the connection while it is not made yet ('nats', 'redis-timers', ...). */
  gate: string;
  gates: ReadinessGates;
  logger: Logger;
  /**
   * How long to keep trying, from the first attempt; the attempt under way when it runs out is the last. 0: one
   * attempt.
   */
  budgetMs: number;
  /** Errors that another attempt cannot cure (refused credentials): thrown at once. */
  isPermanent?: (err: unknown) => boolean;
  /** Start-up was cancelled (SIGTERM): stop trying. */
  signal?: AbortSignal;
}

/**
 * Makes a service's first connection, retried with backoff (0.25 s doubling to 5 s) for `budgetMs`. Servers started
 * beside their clients (a compose file, a chart, a NATS node restarting during a rolling upgrade) answer some seconds
 * after the services ask, and a slow answer is a timeout, not a refusal: exiting at the first one makes the kubelet
 * restart the pod with a growing back-off, during which the service does no work at all. While it retries, /readyz
 * names the gate with the last error. When the budget runs out the last error is thrown, so the process still exits
 * naming the server it could not reach.
 */
export async function retryAtStartup<T>(connect: () => Promise<T>, o: StartupRetryOptions): Promise<T> {
  let last: unknown;
  try {
    const made = await pRetry(connect, {
      // Bounded by maxRetryTime, which `retry` reads as "no limit" when 0; it builds its table of waits up front, so
      // the count must stay finite.
      retries: o.budgetMs > 0 ? 1000 : 0,
      minTimeout: 250,
      maxTimeout: 5000,
      factor: 2,
      maxRetryTime: o.budgetMs,
      ...(o.signal ? { signal: o.signal } : {}),
      shouldRetry: (err) => !o.isPermanent?.(err),
      onFailedAttempt: (err) => {
        last = err;
        o.gates.set(o.gate, false, `connecting: ${err.message}`);
        o.logger.warn(
          { connection: o.gate, attempt: err.attemptNumber, error: err.message },
          `${o.gate} not reachable`,
        );
      },
    });
    o.gates.set(o.gate, true);
    return made;
  } catch (err) {
    // On running out, p-retry rejects with the most frequent error; the last one says best what is wrong now.
    throw o.signal?.aborted || o.isPermanent?.(err) ? err : (last ?? err);
  }
}
