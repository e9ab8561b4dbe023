import { decodeJson } from '@flotilla/bus';
import { errors, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { apiErrorFrom, ServiceUnavailableError } from './api-error.js';
import type { ApiReply, ApplyRequest, Operation, Operations } from './protocol.js';

export interface GatewayClientOptions {
  /** `<prefix>.api` (BusNames.apiRoot). */
  apiRoot: string;
  timeoutMs?: number;
}

/** Typed request-reply calls to the gateway; an error reply becomes the ApiError subclass of its reason. */
export class GatewayClient {
  private readonly timeoutMs: number;
  constructor(
    private readonly nc: NatsConnection,
    private readonly opts: GatewayClientOptions,
  ) {
    this.timeoutMs = opts.timeoutMs ?? 10_000;
  }

  async call<O extends Operation>(op: O, body: Operations[O][0]): Promise<Operations[O][1]> {
    let msg: Msg;
    try {
      msg = await this.nc.request(`${this.opts.apiRoot}.${op}`, JSON.stringify(body), { timeout: this.timeoutMs });
    } catch (err) {
      throw new ServiceUnavailableError({
        reason: 'ServiceUnavailable',
        message: isNoResponders(err)
          ? 'the gateway is not running (no responders on the bus): start the suite first'
          : `gateway request failed: ${(err as Error).message}`,
      });
    }
    const reply = decodeJson<ApiReply<Operations[O][1]>>(msg.data);
    if (!reply.ok) throw apiErrorFrom(reply.error);
    return reply.result;
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

const isNoResponders = (err: unknown): boolean =>
  err instanceof errors.NoRespondersError || (err instanceof errors.RequestError && err.isNoResponders());
