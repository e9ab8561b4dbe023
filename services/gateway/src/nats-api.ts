import { encodeJson, type Bus } from '@flotilla/bus';
import type { ApiReply } from '@flotilla/client';
import { dispatch, parseBody, type DispatchLogger } from './dispatch.js';
import { toApiError } from './errors.js';
import type { GatewayHandler } from './handler.js';
import { RequestMetrics } from './request-metrics.js';
import type { Registry } from 'prom-client';

/**
 * Serves `<prefix>.api.<op>` requests. Replicas share the queue group "gateway", so each request is answered
 * by exactly one of them.
 */
export function serveNatsApi(
  bus: Bus,
  handler: GatewayHandler,
  log: DispatchLogger,
  registry?: Registry,
): { stop(): Promise<void> } {
  const root = bus.names.apiRoot;
  const metrics = registry ? RequestMetrics.of(registry) : undefined;
  const sub = bus.nc.subscribe(`${root}.*`, {
    queue: 'gateway',
    callback: (err, msg) => {
      if (err) {
        // The subscription itself failed (a permissions violation, say): no request is answered until it is fixed.
        log.error({ err, subject: `${root}.*` }, 'the API subscription failed');
        return;
      }
      const op = msg.subject.slice(root.length + 1);
      void (async () => {
        let reply: ApiReply<unknown>;
        try {
          reply = await dispatch(handler, op, parseBody(msg.string()), log, metrics, { via: 'nats' });
        } catch (parseErr) {
          reply = { ok: false, error: toApiError(parseErr) };
        }
        // encodeJson: a reply past the message size limit (a large status) goes gzipped.
        msg.respond(encodeJson(reply));
      })().catch((respondErr: unknown) =>
        // The connection closed while the request was handled: the caller times out and may ask again.
        log.error({ err: respondErr, op }, 'could not send the reply'),
      );
    },
  });
  return { stop: () => sub.drain() };
}
