// The webhook thread (webhook-thread.ts): serves POST /validate on its own port, judging with admission alone and
// asking the gateway's thread for what needs its state.
import { parentPort, workerData } from 'node:worker_threads';
import { isPlainObject, listKinds, ReservedNamespaces } from '@flotilla/api';
import { ApiTokens } from './api-tokens.js';
import { RefusedReviewError } from './errors.js';
import { type Reviewer, review, serveWebhookApi, type WebhookJudge } from './http-api.js';
import { admitForWebhook, reservedTemplateOf } from './webhook-admission.js';
import type { FromWebhookThread, ToWebhookThread, WebhookWorkerData } from './webhook-thread.js';

const port = parentPort;
if (!port) throw new Error('webhook-worker runs as a worker thread of the gateway (serveWebhookThread)');
const data = workerData as WebhookWorkerData;
const post = (m: FromWebhookThread) => port.postMessage(m);
const reserved = new ReservedNamespaces(data.reservedNamespaces);

const waiting = new Map<number, { resolve(answer: object): void; reject(err: Error): void }>();
let nextId = 0;
/** The gateway's thread answers the review (review() with its handler). */
const askGateway = (body: unknown) =>
  new Promise<object>((resolve, reject) => {
    const id = nextId++;
    waiting.set(id, { resolve, reject });
    post({ type: 'review', id, body });
  });

/**
 * A dry run is previewed from the live state, and a template in a reserved namespace judged against the policies
 * the gateway holds: both are the gateway's. Everything else (every write kubectl sends) is judged here.
 */
function needsGateway(body: unknown): boolean {
  const request = isPlainObject(body) ? body.request : undefined;
  if (!isPlainObject(request)) return false; // review() refuses it here, naming what is missing
  const namespace = typeof request.namespace === 'string' ? request.namespace : undefined;
  return request.dryRun === true || reservedTemplateOf(request.object, namespace, reserved) !== undefined;
}

const admissionAlone: WebhookJudge = {
  webhookAdmit: async (object, opts = {}) =>
    admitForWebhook(object, { existing: opts.existing, reservedNamespaces: reserved }),
  webhookPreviewWarnings: () => Promise.reject(new Error('a dry run is previewed by the gateway thread')),
};
const reviewer: Reviewer = (body) => (needsGateway(body) ? askGateway(body) : review(body, admissionAlone));

// A schema's first parse compiles it, and this thread's code starts cold: one review of each kind (refused or not)
// before listening, so that the API server's first calls of each kind do not wait for that.
for (const { apiVersion, kind } of listKinds()) {
  try {
    admitForWebhook(
      { apiVersion, kind, metadata: { name: 'warm-up', namespace: 'default' }, spec: {} },
      { reservedNamespaces: reserved },
    );
  } catch {
    // refused: warm all the same
  }
}

const served = await serveWebhookApi(
  reviewer,
  {
    host: data.host,
    port: data.port,
    tls: data.tls,
    tokens: data.tokens ? ApiTokens.parse(data.tokens.text, data.tokens.source) : undefined,
    allowAnonymous: data.allowAnonymous,
    limits: data.limits,
  },
  { error: (obj, msg) => post({ type: 'log', obj: loggable(obj), msg }) },
  { answered: (_operation, reason, seconds) => post({ type: 'answered', reason, seconds }) },
).catch((err: unknown) => {
  post({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
  return undefined;
});
if (served) {
  post({ type: 'listening', port: served.port });
  port.on('message', (m: ToWebhookThread) => {
    if (m.type === 'close') {
      void served.close().then(() => post({ type: 'closed' }));
      return;
    }
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (m.type === 'reviewed') w?.resolve(m.answer);
    else w?.reject(new RefusedReviewError(m.error));
  });
} else port.close();

/** An error does not cross threads whole: its name, message and stack do. */
function loggable(obj: object): object {
  const { err, ...rest } = obj as { err?: unknown };
  return err instanceof Error ? { ...rest, err: { name: err.name, message: err.message, stack: err.stack } } : obj;
}
