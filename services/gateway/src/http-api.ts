import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { admit, AdmissionError } from '@flotilla/api';
import { STATUS_CODES } from '@flotilla/client';
import { scheduleChecks } from '@flotilla/cron';
import { dispatch, parseBody, type DispatchLogger } from './dispatch.js';
import { toApiError } from './errors.js';
import type { GatewayHandler } from './handler.js';
import { RequestMetrics } from './request-metrics.js';
import type { Registry } from 'prom-client';

/** Generous for a 900 KiB object in JSON; larger bodies are refused before parsing. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * HTTP front door: `POST /api/<op>` with the same JSON bodies as the NATS API, and `POST /validate`, a
 * Kubernetes validating admission webhook (admission.k8s.io/v1 AdmissionReview) running the same admission.
 */
export async function serveHttpApi(
  handler: GatewayHandler,
  opts: {
    host: string;
    port: number;
    tls?: { cert: Buffer; key: Buffer } | undefined;
    registry?: Registry | undefined;
  },
  log: DispatchLogger,
): Promise<{ port: number; close(): Promise<void> }> {
  const metrics = opts.registry ? RequestMetrics.of(opts.registry) : undefined;
  const listener = (req: IncomingMessage, res: ServerResponse) => void route(handler, req, res, log, metrics);
  // Kubernetes calls admission webhooks over HTTPS only: with a certificate the same routes are served over TLS.
  const server: Server = opts.tls ? createTlsServer(opts.tls, listener) : createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

async function route(
  handler: GatewayHandler,
  req: IncomingMessage,
  res: ServerResponse,
  log: DispatchLogger,
  metrics: RequestMetrics | undefined,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://gateway');
  try {
    if (req.method !== 'POST')
      return send(res, 405, { ok: false, error: { reason: 'BadRequest', message: 'use POST' } });
    const body = parseBody(await readBody(req));
    if (url.pathname === '/validate') return send(res, 200, review(body));
    const m = /^\/api\/([a-z]+)$/.exec(url.pathname);
    if (!m) return send(res, 404, { ok: false, error: { reason: 'NotFound', message: `no route ${url.pathname}` } });
    const reply = await dispatch(handler, m[1]!, body, log, metrics);
    send(res, reply.ok ? 200 : STATUS_CODES[reply.error.reason], reply);
  } catch (err) {
    const error = toApiError(err);
    send(res, STATUS_CODES[error.reason], { ok: false, error });
  }
}

/** An AdmissionReview response: allowed, or denied with the field-path message. */
export function review(body: unknown): object {
  const request = (body as { request?: { uid?: string; object?: unknown; oldObject?: unknown } }).request ?? {};
  let allowed = true;
  let message: string | undefined;
  try {
    admit(request.object, {
      schedules: scheduleChecks,
      ...(request.oldObject ? { existing: request.oldObject as never } : {}),
    });
  } catch (err) {
    if (!(err instanceof AdmissionError)) throw err;
    allowed = false;
    message = err.message;
  }
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: { uid: request.uid ?? '', allowed, ...(message ? { status: { code: 422, message } } : {}) },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error(`request body over ${MAX_BODY_BYTES} bytes`));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
