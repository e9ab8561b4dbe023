import { decodeJson, escapeToken } from '@flotilla/bus';
import { DEFAULT_API_CALLER } from '@flotilla/catalogue';
import { errors, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { type ApiError, apiErrorFrom, isRetryable, ServiceUnavailableError } from './api-error.js';
import type { ApiReply, ApplyRequest, Operation, Operations } from './protocol.js';

/** How a call that was answered "not now" is asked again: exponential backoff with full jitter. */
export interface RetryOptions {
  /** Calls in all, the first included; 1 never retries. */
  attempts: number;
  /** The backoff's first step; each retry doubles it, up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const GATEWAY_CLIENT_DEFAULTS = {
  timeoutMs: 10_000,
  retry: { attempts: 5, baseDelayMs: 100, maxDelayMs: 2_000 } satisfies RetryOptions,
} as const;

export interface GatewayClientOptions {
  /** `<prefix>.api` (BusNames.apiRoot). */
  apiRoot: string;
  /**
   * Who calls: requests go to `<apiRoot>.<caller>.<op>`, and the gateway gives the caller its role (catalogue's
   * API_CALLERS; `cli`, the admin, by default). On a NATS server with the shipped authorization a user may publish
   * under its own name only (`flotilla-cli-read` as `cli-read`), so the name cannot be borrowed.
   */
  caller?: string;
  /**
   * How long one call waits for the gateway's answer. A call that times out here is not retried: it may have acted.
   * A call in flight when the connection drops fails at once instead (as an HTTP request on a reset connection does),
   * with the same "may have acted" error: its request or its answer may have gone down with the server.
   */
  timeoutMs?: number;
  /**
   * Retries of a call the gateway answered Timeout or ServiceUnavailable, or that no gateway received (none running,
   * one restarting): none of these acted on the request, so asking again is safe for every operation.
   */
  retry?: Partial<RetryOptions>;
  /** Waits between retries (tests pass their own). */
  sleep?: (ms: number) => Promise<void>;
}

/** Typed request-reply calls to the gateway; an error reply becomes the ApiError subclass of its reason. */
export class GatewayClient {
  private readonly timeoutMs: number;
  private readonly caller: string;
  private readonly retry: RetryOptions;
  private readonly sleep: (ms: number) => Promise<void>;
  /** Fails a call in flight; every pending call's is run, and forgotten, when the connection drops. */
  private readonly inFlight = new Set<(dropped: ConnectionDroppedError) => void>();
  private watchingDrops = false;
  /** Set while the connection is down; resolves when it is back. */
  private reconnected: Promise<void> | undefined;
  constructor(
    private readonly nc: NatsConnection,
    private readonly opts: GatewayClientOptions,
  ) {
    this.timeoutMs = opts.timeoutMs ?? GATEWAY_CLIENT_DEFAULTS.timeoutMs;
    this.caller = escapeToken(opts.caller ?? DEFAULT_API_CALLER);
    this.retry = { ...GATEWAY_CLIENT_DEFAULTS.retry, ...opts.retry };
    if (!Number.isInteger(this.retry.attempts) || this.retry.attempts < 1)
      throw new RangeError(
        `GatewayClient: retry.attempts must be a whole number of at least 1, got ${this.retry.attempts}`,
      );
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  async call<O extends Operation>(op: O, body: Operations[O][0]): Promise<Operations[O][1]> {
    const payload = JSON.stringify(body);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.callOnce<Operations[O][1]>(op, payload);
      } catch (err) {
        if (!(err instanceof Retry) || attempt >= this.retry.attempts) throw err instanceof Retry ? err.error : err;
        await this.sleep(backoffMs(this.retry, attempt, err.error.retryAfterSeconds));
      }
    }
  }

  /** One request; a "not now" answer is thrown wrapped in Retry. */
  private async callOnce<T>(op: Operation, payload: string): Promise<T> {
    let msg: Msg;
    try {
      msg = await this.requestUnlessDropped(`${this.opts.apiRoot}.${this.caller}.${op}`, payload);
    } catch (err) {
      if (isNoResponders(err))
        throw new Retry(
          new ServiceUnavailableError({
            reason: 'ServiceUnavailable',
            message: 'the gateway is not running (no responders on the bus): start the suite first',
          }),
        );
      throw new ServiceUnavailableError({
        reason: 'ServiceUnavailable',
        message: `gateway request failed: ${(err as Error).message}`,
      });
    }
    const reply = decodeJson<ApiReply<T>>(msg.data);
    if (reply.ok) return reply.result;
    const error = apiErrorFrom(reply.error);
    throw isRetryable(error) ? new Retry(error) : error;
  }

  /**
   * The request, or a ConnectionDroppedError as soon as the connection drops while it waits: a request lost with its
   * server (kill -9 of the NATS node this client or the gateway was on) would otherwise hold the caller for the whole
   * timeout. A call made while the connection is down waits for the reconnect before it is sent, because nats.js
   * discards what was published between the drop and its next attempt to connect.
   */
  private async requestUnlessDropped(subject: string, payload: string): Promise<Msg> {
    this.watchDrops();
    const deadline = Date.now() + this.timeoutMs;
    if (this.reconnected && !(await settlesWithin(this.reconnected, this.timeoutMs)))
      throw new Error(`timeout: the connection to NATS was not back within ${this.timeoutMs} ms`);
    return await new Promise<Msg>((resolve, reject) => {
      this.inFlight.add(reject);
      this.nc
        .request(subject, payload, { timeout: Math.max(1, deadline - Date.now()) })
        .then(resolve, reject)
        .finally(() => this.inFlight.delete(reject));
    });
  }

  /** One status watch per client, ended with the connection. */
  private watchDrops(): void {
    if (this.watchingDrops) return;
    this.watchingDrops = true;
    let back = () => {};
    void (async () => {
      try {
        for await (const s of this.nc.status()) {
          if (s.type === 'disconnect') {
            this.reconnected ??= new Promise<void>((r) => {
              back = r;
            });
            const pending = [...this.inFlight];
            this.inFlight.clear();
            for (const fail of pending) fail(new ConnectionDroppedError(s.server));
          } else if (s.type === 'reconnect') {
            this.reconnected = undefined;
            back();
          }
        }
      } finally {
        // Closed: calls fail with the connection's own error rather than wait.
        this.reconnected = undefined;
        back();
      }
    })();
  }

  apply(object: unknown, opts: Omit<ApplyRequest, 'object'> = {}) {
    return this.call('apply', { object, ...opts });
  }
  get(kind: string, name: string, namespace?: string) {
    return this.call('get', { kind, name, namespace });
  }
  list(kind: string, namespace?: string) {
    return this.call('list', { kind, namespace });
  }
  delete(kind: string, name: string, namespace?: string, resourceVersion?: string) {
    return this.call('delete', { kind, name, namespace, resourceVersion });
  }
  /** What a change would move on the live state; nothing is written. */
  preview(req: Operations['preview'][0]) {
    return this.call('preview', req);
  }
  /** The fail-back queue: who waits, since when, when and where each would move; nothing is written. */
  failBacks() {
    return this.call('failbacks', {});
  }
  events(q: Operations['events'][0] = {}) {
    return this.call('events', q);
  }
}

/** The connection dropped while a call waited for its answer (the caller sees a ServiceUnavailableError). */
class ConnectionDroppedError extends Error {
  constructor(server: string) {
    super(`the connection to NATS at ${server} dropped while the call was in flight, which may have acted; ask again`);
    this.name = 'ConnectionDroppedError';
  }
}

/** A retryable answer, on its way to the retry loop. */
class Retry {
  constructor(readonly error: ApiError) {}
}

/**
 * The wait before retry number `attempt` (1-based): full jitter over the doubled step, never under what the gateway
 * asked for.
 */
export function backoffMs(o: RetryOptions, attempt: number, retryAfterSeconds?: number, random = Math.random): number {
  const step = Math.min(o.maxDelayMs, o.baseDelayMs * 2 ** (attempt - 1));
  return Math.max(Math.round(random() * step), (retryAfterSeconds ?? 0) * 1000);
}

/** Whether `p` settles within `ms`. */
async function settlesWithin(p: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<false>((r) => {
    timer = setTimeout(() => r(false), ms);
  });
  try {
    return await Promise.race([p.then(() => true as const), expired]);
  } finally {
    clearTimeout(timer);
  }
}

const isNoResponders = (err: unknown): boolean =>
  err instanceof errors.NoRespondersError || (err instanceof errors.RequestError && err.isNoResponders());
