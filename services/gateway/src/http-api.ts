import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { admissionWarnings, admit, AdmissionError, isPlainObject } from '@flotilla/api';
import { STATUS_CODES, type StatusReason } from '@flotilla/client';
import { scheduleChecks } from '@flotilla/cron';
import { dispatch, parseBody, type DispatchLogger } from './dispatch.js';
import { allows, type ApiTokens, isLoopback } from './api-tokens.js';
import {
  BadRequestError,
  NoSuchPathError,
  NotPermittedError,
  TooLargeError,
  toApiError,
  UnauthenticatedError,
} from './errors.js';
import type { GatewayHandler } from './handler.js';
import { type DashboardViews, sendDashboardFile } from './dashboard.js';
import { DASHBOARD_PATH } from '@flotilla/dashboard';
import { RequestMetrics, WEBHOOK_OPERATION } from './request-metrics.js';
import { GracefulClose } from './graceful-close.js';
import type { Registry } from 'prom-client';

/** Generous for a 900 KiB object in JSON; larger bodies are refused before parsing. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export class InsecureBindError extends Error {
  constructor(readonly host: string) {
    super(
      `refusing to serve the gateway API on ${host} without authentication: set GATEWAY_TOKENS_FILE ` +
        '(lines "token,role,name") or bind GATEWAY_API_HOST to 127.0.0.1 ' +
        '(GATEWAY_ALLOW_ANONYMOUS=true only where the port is reachable from this machine alone)',
    );
    this.name = 'InsecureBindError';
  }
}

export interface HttpApiOptions {
  host: string;
  port: number;
  /** PEM; with `clientCa` the webhook takes only callers presenting a certificate that CA signed. */
  tls?: { cert: Buffer; key: Buffer; clientCa?: Buffer | undefined } | undefined;
  /** Without tokens the API is open, which is allowed on a loopback host only. */
  tokens?: ApiTokens | undefined;
  /** Anonymous beyond loopback, for a container whose published port the host keeps on its own loopback. */
  allowAnonymous?: boolean | undefined;
  registry?: Registry | undefined;
  /** The web dashboard's reads; without it `/dashboard/` is not served. */
  dashboard?: DashboardViews | undefined;
}

/**
 * HTTP front door: `POST /api/<op>` with the same JSON bodies as the NATS API, and `POST /validate`, a
 * Kubernetes validating admission webhook (admission.k8s.io/v1 AdmissionReview) running the same admission.
 * With tokens every request carries `Authorization: Bearer <token>`; a `read` token may get, list and read events.
 */
export async function serveHttpApi(
  handler: GatewayHandler,
  opts: HttpApiOptions,
  log: DispatchLogger,
): Promise<{ port: number; close(): Promise<void> }> {
  if (!opts.tokens && !opts.allowAnonymous && !isLoopback(opts.host)) throw new InsecureBindError(opts.host);
  const metrics = opts.registry ? RequestMetrics.of(opts.registry) : undefined;
  const auth = { tokens: opts.tokens, webhookByCertificate: Boolean(opts.tls?.clientCa) };
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    graceful.track(req, res);
    void route(handler, auth, req, res, log, metrics, opts.dashboard);
  };
  // Kubernetes calls admission webhooks over HTTPS only: with a certificate the same routes are served over TLS.
  // The client certificate is asked for but not required at the handshake, so API clients may use tokens instead.
  const server: Server = opts.tls
    ? createTlsServer(
        {
          cert: opts.tls.cert,
          key: opts.tls.key,
          ...(opts.tls.clientCa ? { ca: opts.tls.clientCa, requestCert: true, rejectUnauthorized: false } : {}),
        },
        listener,
      )
    : createServer(listener);
  const graceful = new GracefulClose(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => graceful.close(),
  };
}

interface Auth {
  tokens: ApiTokens | undefined;
  webhookByCertificate: boolean;
}

async function route(
  handler: GatewayHandler,
  auth: Auth,
  req: IncomingMessage,
  res: ServerResponse,
  log: DispatchLogger,
  metrics: RequestMetrics | undefined,
  dashboard: DashboardViews | undefined,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://gateway');
  const webhook = url.pathname === '/validate';
  // The webhook's answer time is what the API server waits for on every admitted write (its own
  // apiserver_admission_webhook_admission_duration_seconds adds the connection): measured from the request's headers.
  const started = performance.now();
  const answeredWebhook = (reason: StatusReason | 'Success') =>
    metrics?.answered(WEBHOOK_OPERATION, reason, (performance.now() - started) / 1000);
  try {
    if (dashboard && (url.pathname === DASHBOARD_PATH || url.pathname.startsWith(`${DASHBOARD_PATH}/`)))
      return await routeDashboard(dashboard, auth, url, req, res);
    if (req.method !== 'POST')
      return send(res, 405, { ok: false, error: { reason: 'BadRequest', message: 'use POST' } });
    const m = /^\/api\/([a-z]+)$/.exec(url.pathname);
    // Checked before the body is read: an unknown caller cannot make the gateway buffer 4 MiB.
    let caller: string | undefined;
    if (webhook) authorizeWebhook(auth, req);
    else if (m) caller = authorize(auth, req, m[1]!);
    const body = parseBody(await readBody(req));
    if (webhook) {
      send(res, 200, review(body));
      return void answeredWebhook('Success');
    }
    if (!m) return send(res, 404, { ok: false, error: { reason: 'NotFound', message: `no route ${url.pathname}` } });
    const reply = await dispatch(handler, m[1]!, body, log, metrics, { name: caller, via: 'http' });
    if (!reply.ok && reply.error.retryAfterSeconds !== undefined)
      res.setHeader('retry-after', String(reply.error.retryAfterSeconds));
    send(res, reply.ok ? 200 : STATUS_CODES[reply.error.reason], reply);
  } catch (err) {
    const error = toApiError(err);
    if (webhook) answeredWebhook(error.reason);
    if (error.reason === 'InternalError') log.error({ err, path: url.pathname }, 'request failed');
    // An event stream that failed after its first line cannot be answered with a status any more.
    if (res.headersSent) return void res.end();
    if (error.reason === 'Unauthorized') res.setHeader('www-authenticate', 'Bearer');
    if (error.retryAfterSeconds !== undefined) res.setHeader('retry-after', String(error.retryAfterSeconds));
    // The unread body is drained so the client gets the answer rather than a reset connection.
    req.resume();
    send(res, STATUS_CODES[error.reason], { ok: false, error });
  }
}

/**
 * The dashboard (`/dashboard/`): the page and its assets for anyone (they hold no data), and under
 * `/dashboard/api/<view>` the reads the page makes beyond `POST /api/<op>`, each authorized as a `list`: a read
 * token may see everything the dashboard shows. Acting (cluster fail, rebalance) goes through `POST /api/apply`.
 */
async function routeDashboard(
  views: DashboardViews,
  auth: Auth,
  url: URL,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD')
    return send(res, 405, { ok: false, error: { reason: 'BadRequest', message: 'use GET' } });
  const view = /^\/dashboard\/api\/([a-z]+)$/.exec(url.pathname)?.[1];
  if (view === undefined) return sendDashboardFile(url.pathname, res);
  authorize(auth, req, 'list');
  if (view === 'stream') return views.stream(url.searchParams, req, res);
  if (view === 'bindings') return send(res, 200, { ok: true, result: await views.bindings(url.searchParams) });
  if (view === 'workload') return send(res, 200, { ok: true, result: await views.workload(url.searchParams) });
  if (view === 'history') return send(res, 200, { ok: true, result: await views.history(url.searchParams) });
  throw new NoSuchPathError(url.pathname);
}

/** Checks the caller's token and role; returns the token's name (undefined when the API is open). */
function authorize(auth: Auth, req: IncomingMessage, operation: string): string | undefined {
  if (!auth.tokens) return undefined;
  const caller = auth.tokens.caller(req.headers.authorization);
  if (!caller) throw new UnauthenticatedError('a valid "Authorization: Bearer <token>" header is required');
  if (!allows(caller.role, operation)) throw new NotPermittedError(caller.name, caller.role, operation);
  return caller.name;
}

/** Kubernetes calls webhooks with its client certificate when one is configured; otherwise the webhook takes tokens. */
function authorizeWebhook(auth: Auth, req: IncomingMessage): void {
  if (auth.webhookByCertificate) {
    if (!(req.socket as TLSSocket).authorized)
      throw new UnauthenticatedError('the admission webhook requires a client certificate signed by its client CA');
    return;
  }
  if (auth.tokens && !auth.tokens.caller(req.headers.authorization))
    throw new UnauthenticatedError('a valid "Authorization: Bearer <token>" header is required');
}

/**
 * An AdmissionReview response: allowed (with admission's warnings, which kubectl prints as `Warning: …`), or denied
 * with the field-path message.
 */
export function review(body: unknown): object {
  const request = isPlainObject(body) ? body.request : undefined;
  if (!isPlainObject(request))
    throw new BadRequestError('request body must be an AdmissionReview with a "request" object');
  let allowed = true;
  let message: string | undefined;
  let warnings: string[] = [];
  try {
    const admitted = admit(request.object, {
      schedules: scheduleChecks,
      ...(isPlainObject(request.oldObject) ? { existing: request.oldObject as never } : {}),
    });
    warnings = admissionWarnings(admitted);
  } catch (err) {
    if (!(err instanceof AdmissionError)) throw err;
    allowed = false;
    message = err.message;
  }
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: {
      uid: typeof request.uid === 'string' ? request.uid : '',
      allowed,
      ...(message ? { status: { code: 422, message } } : {}),
      ...(warnings.length ? { warnings } : {}),
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      // Over the limit the rest is read and dropped rather than the socket destroyed: a client still sending sees a
      // 413 answer instead of a connection reset.
      if (size > MAX_BODY_BYTES) {
        chunks.length = 0;
        reject(new TooLargeError(size, MAX_BODY_BYTES, 'request body'));
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
