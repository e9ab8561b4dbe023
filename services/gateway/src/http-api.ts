import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { AdmissionError, isPlainObject } from '@flotilla/api';
import { OPERATIONS, STATUS_CODES, type StatusReason } from '@flotilla/client';
import { dispatch, parseBody, type DispatchLogger } from './dispatch.js';
import { allows, type ApiTokens, isLoopback } from './api-tokens.js';
import { CallerLimits, type CallerLimitsOptions } from './caller-limits.js';
import {
  BadRequestError,
  ForeignRequestError,
  NoSuchPathError,
  NotPermittedError,
  TooLargeError,
  toApiError,
  UnauthenticatedError,
  UnsupportedMediaTypeError,
} from './errors.js';
import type { GatewayHandler } from './handler.js';
import { type DashboardViews, sendDashboardFile } from './dashboard.js';
import { DASHBOARD_PATH } from '@flotilla/dashboard';
import { type AnswerMetrics, RequestMetrics, WEBHOOK_OPERATION } from './request-metrics.js';
import { GracefulClose } from './graceful-close.js';
import type { Registry } from 'prom-client';

/**
 * Generous for a 900 KiB object in JSON (an apply, or an AdmissionReview with its old object beside it); larger bodies
 * are refused before parsing.
 */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** The body of get, list, events and delete names what to read or delete: a few hundred bytes (a preview's is an apply's). */
export const READ_BODY_BYTES = 16 * 1024;
/**
 * How long a client may take to send its whole request (headers and body). A body trickled in holds its buffer and
 * its caller's in-flight slot meanwhile; an event stream is a GET, whose request is complete at once.
 */
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * On every answer. The dashboard's page loads its script, style and data from the gateway alone (uPlot styles through
 * the CSSOM, which `style-src` does not govern; the icon is a `data:` URL) and may not be framed (clickjacking of its
 * Fail and Rebalance buttons); nothing is sniffed into another type.
 */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
} as const;

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

/** Where the webhook listens and whom it answers: the API's own rules (serveHttpApi), or the webhook thread's. */
export interface WebhookListenOptions {
  host: string;
  port: number;
  /** PEM; with `clientCa` the webhook takes only callers presenting a certificate that CA signed. */
  tls?: { cert: Buffer; key: Buffer; clientCa?: Buffer | undefined } | undefined;
  /** Without tokens the API is open, which is allowed on a loopback host only. */
  tokens?: ApiTokens | undefined;
  /** Anonymous beyond loopback, for a container whose published port the host keeps on its own loopback. */
  allowAnonymous?: boolean | undefined;
  /** Each caller's share of requests (CALLER_LIMIT_DEFAULTS for what is not given). */
  limits?: Partial<CallerLimitsOptions> | undefined;
}

export interface HttpApiOptions extends WebhookListenOptions {
  registry?: Registry | undefined;
  /** The web dashboard's reads; without it `/dashboard/` is not served. */
  dashboard?: DashboardViews | undefined;
}

/** An AdmissionReview's answer (review() with a judge, or the webhook thread's, which may ask the gateway's). */
export type Reviewer = (body: unknown) => Promise<object>;

/** What judges a review: the gateway's handler, or in the webhook thread admission alone. */
export type WebhookJudge = Pick<GatewayHandler, 'webhookAdmit' | 'webhookPreviewWarnings'>;

/** A server answering; `close` waits for the requests it is serving. */
export interface Served {
  port: number;
  close(): Promise<void>;
}

/**
 * HTTP front door: `POST /api/<op>` with the same JSON bodies as the NATS API, and `POST /validate`, a
 * Kubernetes validating admission webhook (admission.k8s.io/v1 AdmissionReview) running the same admission.
 * With tokens every request carries `Authorization: Bearer <token>`; a `read` token may get, list and read events.
 * Without tokens (loopback only) a browser is the risk: another page may not make it act, nor read it through a name
 * that resolves to 127.0.0.1 (DNS rebinding), so requests must name a loopback Host and POSTs come from its own origin.
 * Each caller (token, or address without one) is held to CallerLimits; every POST body is JSON, read once its route
 * and caller are known.
 */
export async function serveHttpApi(
  handler: GatewayHandler,
  opts: HttpApiOptions,
  log: DispatchLogger,
): Promise<Served> {
  const metrics = opts.registry ? RequestMetrics.of(opts.registry) : undefined;
  const reviewer: Reviewer = (body) => review(body, handler);
  return listen(opts, (auth, req, res) => route({ handler, reviewer }, auth, req, res, log, metrics, opts.dashboard));
}

/**
 * `POST /validate` alone (every other path is a 404), with serveHttpApi's TLS and callers' rules: what the webhook
 * thread serves (webhook-thread.ts), so that no other work of the gateway's delays an answer.
 */
export function serveWebhookApi(
  reviewer: Reviewer,
  opts: WebhookListenOptions,
  log: DispatchLogger,
  metrics: AnswerMetrics,
): Promise<Served> {
  return listen(opts, (auth, req, res) => route({ reviewer }, auth, req, res, log, metrics, undefined));
}

async function listen(
  opts: WebhookListenOptions,
  serve: (auth: Auth, req: IncomingMessage, res: ServerResponse) => Promise<void>,
): Promise<Served> {
  if (!opts.tokens && !opts.allowAnonymous && !isLoopback(opts.host)) throw new InsecureBindError(opts.host);
  const auth: Auth = {
    tokens: opts.tokens,
    webhookByCertificate: Boolean(opts.tls?.clientCa),
    scheme: opts.tls ? 'https' : 'http',
    limits: new CallerLimits(opts.limits),
  };
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    graceful.track(req, res);
    void serve(auth, req, res);
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
  server.requestTimeout = REQUEST_TIMEOUT_MS;
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
  /** The scheme of the gateway's own origin. */
  scheme: 'http' | 'https';
  limits: CallerLimits;
}

/** What a server answers: the API's operations (without a handler, /validate alone) and the webhook's reviews. */
interface Routes {
  handler?: GatewayHandler;
  reviewer: Reviewer;
}

async function route(
  { handler, reviewer }: Routes,
  auth: Auth,
  req: IncomingMessage,
  res: ServerResponse,
  log: DispatchLogger,
  metrics: AnswerMetrics | undefined,
  dashboard: DashboardViews | undefined,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://gateway');
  const webhook = url.pathname === '/validate';
  // The webhook's answer time is what the API server waits for on every admitted write (its own
  // apiserver_admission_webhook_admission_duration_seconds adds the connection): measured from the request's headers.
  const started = performance.now();
  const answeredWebhook = (reason: StatusReason | 'Success') =>
    metrics?.answered(WEBHOOK_OPERATION, reason, (performance.now() - started) / 1000);
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
  try {
    // The API server, known by its client certificate, is no browser and no caller to share out: its own in-flight
    // limits pace its admission calls, and refusing them would fail kubectl's writes.
    if (webhook) authorizeWebhook(auth, req);
    const apiServer = webhook && auth.webhookByCertificate;
    if (!auth.tokens && !apiServer) refuseForeign(auth, req);
    if (!apiServer) res.once('close', auth.limits.admit(callerKey(auth, req)));
    if (dashboard && (url.pathname === DASHBOARD_PATH || url.pathname.startsWith(`${DASHBOARD_PATH}/`)))
      return await routeDashboard(dashboard, auth, url, req, res);
    if (req.method !== 'POST')
      return send(res, 405, { ok: false, error: { reason: 'BadRequest', message: 'use POST' } });
    const op = /^\/api\/([a-z]+)$/.exec(url.pathname)?.[1];
    // Everything below is decided before the body is read: an unknown route, operation or caller, or a body that is
    // not JSON, cannot make the gateway buffer 4 MiB.
    if (!webhook && (op === undefined || !handler)) throw new NoSuchPathError(url.pathname);
    const caller = op === undefined ? undefined : authorize(auth, req, op);
    if (op !== undefined && handler && !(OPERATIONS as readonly string[]).includes(op)) {
      const reply = await dispatch(handler, op, undefined, log, metrics);
      return send(res, reply.ok ? 200 : STATUS_CODES[reply.error.reason], reply);
    }
    if (!isJson(req.headers['content-type'])) throw new UnsupportedMediaTypeError(req.headers['content-type']);
    // A preview carries objects as an apply does (a file of several documents), not a name to read.
    const carriesObjects = op === undefined || op === 'apply' || op === 'preview';
    const body = parseBody(await readBody(req, carriesObjects ? MAX_BODY_BYTES : READ_BODY_BYTES));
    if (op === undefined || !handler) {
      send(res, 200, await reviewer(body));
      return void answeredWebhook('Success');
    }
    const reply = await dispatch(handler, op, body, log, metrics, { name: caller, via: 'http' });
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
  if (view === 'forecast') return send(res, 200, { ok: true, result: await views.forecast(url.searchParams) });
  throw new NoSuchPathError(url.pathname);
}

/** Who a request's share of CallerLimits is counted against: its token's holder, else its address. */
function callerKey(auth: Auth, req: IncomingMessage): string {
  const caller = auth.tokens?.caller(req.headers.authorization);
  return caller ? `token:${caller.name}` : `address:${req.socket.remoteAddress ?? 'unknown'}`;
}

/**
 * An anonymous gateway answers only what a program or a page of its own on this machine asked: the `Host` must be a
 * loopback name (a page of another site that resolves its own name to 127.0.0.1 sends that name, which is how DNS
 * rebinding is told), and a POST a browser sends on behalf of a page (it says so by `Origin` or `Sec-Fetch-Site`)
 * must come from the gateway's own origin. The CLI and scripts send neither header.
 */
function refuseForeign(auth: Auth, req: IncomingMessage): void {
  const host = req.headers.host?.toLowerCase() ?? '';
  if (!isLoopback(hostname(host)))
    throw new ForeignRequestError(
      `Host "${host}" is not a loopback name (127.0.0.1, ::1 or localhost); without GATEWAY_TOKENS_FILE the gateway ` +
        'answers only requests addressed to it on this machine',
    );
  if (req.method !== 'POST') return;
  const own = `${auth.scheme}://${host}`;
  const origin = req.headers.origin;
  if (origin !== undefined && origin.toLowerCase() !== own)
    throw new ForeignRequestError(
      `a POST from the origin "${origin}", not the gateway's own (${own}); another page may not act through an ` +
        'anonymous gateway (set GATEWAY_TOKENS_FILE for clients on other origins)',
    );
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none')
    throw new ForeignRequestError(`a POST a browser sent from a ${site} page (Sec-Fetch-Site), not the gateway's own`);
}

/** The name of a `Host` header: without its port, an IPv6 address without its brackets. */
function hostname(host: string): string {
  const m = /^(?:\[([^\]]*)\]|([^:]*))(?::\d*)?$/.exec(host);
  return m?.[1] ?? m?.[2] ?? '';
}

/** `application/json`, with parameters (`; charset=utf-8`) or without. */
function isJson(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]?.trim().toLowerCase() === 'application/json';
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
 * with the field-path message. The handler judges (GatewayHandler.webhookAdmit), with the gateway's configured
 * reserved namespaces and, for a template in one of them, the policies Flotilla holds.
 */
export async function review(body: unknown, handler: WebhookJudge): Promise<object> {
  const request = isPlainObject(body) ? body.request : undefined;
  if (!isPlainObject(request))
    throw new BadRequestError('request body must be an AdmissionReview with a "request" object');
  let allowed = true;
  let message: string | undefined;
  let warnings: string[] = [];
  try {
    warnings = await handler.webhookAdmit(request.object, {
      existing: request.oldObject,
      namespace: typeof request.namespace === 'string' ? request.namespace : undefined,
    });
  } catch (err) {
    if (!(err instanceof AdmissionError)) throw err;
    allowed = false;
    message = err.message;
  }
  // `kubectl apply --dry-run=server`: what the object would move, as warnings kubectl prints.
  if (allowed && request.dryRun === true)
    warnings = [...warnings, ...(await handler.webhookPreviewWarnings(request.object))];
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

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      // Over the limit the rest is read and dropped rather than the socket destroyed: a client still sending sees a
      // 413 answer instead of a connection reset.
      if (size > limit) {
        chunks.length = 0;
        reject(new TooLargeError(size, limit, 'request body'));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  // Answers carry the store's objects: no cache (a browser's, a proxy's) keeps a copy.
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}
