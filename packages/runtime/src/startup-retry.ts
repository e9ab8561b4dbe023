import pRetry from 'p-retry';
import type { Logger } from 'pino';
import type { ReadinessGates } from './readiness-gates.js';

export interface StartupRetryOptions<T> {
  /** The readiness gate that names the connection while it is not made yet ('nats', 'redis-timers', ...). */
  gate: string;
  gates: ReadinessGates;
  logger: Logger;
  /**
   * How long to keep trying, from the first attempt (STARTUP_CONNECT_MS). A failure past it is the last; one just
   * before it is retried after its back-off, so the worst case is the budget, one wait (at most 5 s) and one more
   * attempt. 0: one attempt.
   */
  budgetMs: number;
  /** Errors that another attempt cannot cure (refused credentials): thrown at once. */
  isPermanent?: (err: unknown) => boolean;
  /** Start-up was cancelled (SIGTERM): no further attempt; an attempt that still succeeds is disposed of. */
  signal?: AbortSignal;
  /** Closes a connection made after start-up was cancelled. */
  dispose?: (made: T) => Promise<void>;
}

/**
 * Makes a service's first connection, retried with backoff (0.25 s doubling to 5 s) for `budgetMs`. Servers started
 * beside their clients (a compose file, a chart, a NATS node restarting during a rolling upgrade) answer some seconds
 * after the services ask, and a slow answer is a timeout, not a refusal: exiting at the first one makes the kubelet
 * restart the pod with a growing back-off, during which the service does no work at all. While it retries, /readyz
 * names the gate with the last error. When the budget runs out the last error is thrown, so the process still exits
 * naming the server it could not reach.
 */
export async function retryAtStartup<T>(connect: () => Promise<T>, o: StartupRetryOptions<T>): Promise<T> {
  o.signal?.throwIfAborted();
  const cancelled = () => o.signal?.aborted === true;
  const attempt = async () => {
    const made = await connect();
    // p-retry has already rejected with the abort reason: nobody else will close this connection.
    if (cancelled()) await o.dispose?.(made);
    return made;
  };
  // On running out, p-retry rejects with the last failure, which says best what is wrong now.
  const made = await pRetry(attempt, {
    // Bounded by maxRetryTime alone (a budget of 0 tries once).
    retries: o.budgetMs > 0 ? Number.POSITIVE_INFINITY : 0,
    minTimeout: 250,
    maxTimeout: 5000,
    factor: 2,
    maxRetryTime: o.budgetMs,
    ...(o.signal ? { signal: o.signal } : {}),
    shouldRetry: ({ error }) => !cancelled() && !o.isPermanent?.(error),
    onFailedAttempt: ({ error, attemptNumber }) => {
      // p-retry calls this also for an error it will not retry: only a failure that may pass is reported as one.
      if (cancelled() || o.isPermanent?.(error)) return;
      o.gates.set(o.gate, false, `connecting: ${error.message}`);
      o.logger.warn({ connection: o.gate, attempt: attemptNumber, error: error.message }, `${o.gate} not reachable`);
    },
  });
  o.gates.set(o.gate, true);
  return made;
}
