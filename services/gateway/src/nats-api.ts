import { encodeJson, unescapeToken, type Bus } from '@flotilla/bus';
import { API_CALLERS, type ApiCaller } from '@flotilla/catalogue';
import type { ApiReply } from '@flotilla/client';
import { allows } from './api-tokens.js';
import { dispatch, parseBody, type DispatchLogger } from './dispatch.js';
import { NotPermittedError, toApiError, UnauthenticatedError } from './errors.js';
import type { GatewayHandler } from './handler.js';
import { RequestMetrics } from './request-metrics.js';
import type { Registry } from 'prom-client';

/**
 * The caller a request subject names (`<prefix>.api.<caller>.<op>`) and its role, or why it has none. On a NATS
 * server with the shipped authorization each user publishes under its own name only, so the name is the user's.
 */
export function apiCallerOf(subject: string, root: string): { caller: string; op: string } {
  const [caller = '', op = ''] = subject.slice(root.length + 1).split('.');
  return { caller: unescapeToken(caller), op };
}

/** Refuses a caller the catalogue does not know, and an operation its role does not allow. */
function authorizeCaller(caller: string, op: string): void {
  const role = (API_CALLERS as Record<string, (typeof API_CALLERS)[ApiCaller] | undefined>)[caller];
  if (role === undefined)
    throw new UnauthenticatedError(
      `unknown API caller "${caller}": one of ${Object.keys(API_CALLERS).join(', ')} (the NATS user's name without the prefix)`,
    );
  if (!allows(role, op)) throw new NotPermittedError(caller, role, op);
}

/**
 * Serves `<prefix>.api.<caller>.<op>` requests. Replicas share the queue group "gateway", so each request is
 * answered by exactly one of them. The caller's role (catalogue's API_CALLERS) decides what it may do, as an HTTP
 * token's does, and its name is recorded where the HTTP token's is (the replica trail's `caller`).
 */
export function serveNatsApi(
  bus: Bus,
  handler: GatewayHandler,
  log: DispatchLogger,
  registry?: Registry,
): { stop(): Promise<void> } {
  const root = bus.names.apiRoot;
  const metrics = registry ? RequestMetrics.of(registry) : undefined;
  const sub = bus.nc.subscribe(`${root}.*.*`, {
    queue: 'gateway',
    callback: (err, msg) => {
      if (err) {
        // The subscription itself failed (a permissions violation, say): no request is answered until it is fixed.
        log.error({ err, subject: `${root}.*.*` }, 'the API subscription failed');
        return;
      }
      const { caller, op } = apiCallerOf(msg.subject, root);
      void (async () => {
        let reply: ApiReply<unknown>;
        try {
          authorizeCaller(caller, op);
          reply = await dispatch(handler, op, parseBody(msg.string()), log, metrics, { via: 'nats', name: caller });
        } catch (refused) {
          reply = { ok: false, error: toApiError(refused) };
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
