import { decodeJson } from '@flotilla/bus';
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
  /** How long one call waits for the gateway's answer. A call that times out here is not retried: it may have acted. */
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
  private readonly retry: RetryOptions;
  private readonly sleep: (ms: number) => Promise<void>;
  constructor(
    private readonly nc: NatsConnection,
    private readonly opts: GatewayClientOptions,
  ) {
    this.timeoutMs = opts.timeoutMs ?? GATEWAY_CLIENT_DEFAULTS.timeoutMs;
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
      msg = await this.nc.request(`${this.opts.apiRoot}.${op}`, payload, { timeout: this.timeoutMs });
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
  events(q: Operations['events'][0] = {}) {
    return this.call('events', q);
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

const isNoResponders = (err: unknown): boolean =>
  err instanceof errors.NoRespondersError || (err instanceof errors.RequestError && err.isNoResponders());
