import { Worker } from 'node:worker_threads';
import type { ReservedNamespaces } from '@flotilla/api';
import type { ApiErrorBody, StatusReason } from '@flotilla/client';
import type { Registry } from 'prom-client';
import type { DispatchLogger } from './dispatch.js';
import { toApiError } from './errors.js';
import { review, type Served, type WebhookJudge, type WebhookListenOptions } from './http-api.js';
import { RequestMetrics, WEBHOOK_OPERATION } from './request-metrics.js';

/**
 * The admission webhook on a port of its own (GATEWAY_WEBHOOK_PORT), served by a worker thread: the gateway's event
 * loop, busy with applies, watches and the dashboard's caches in a burst, delayed every answer by tens of ms while
 * admission itself takes a fraction of one (bench/kube-bridge). The thread judges a review with admission alone; a
 * review that needs the gateway's state (a dry run's preview, a template in a reserved namespace, judged against
 * the policies the gateway holds) is asked of this thread's handler and answered when it replies.
 */
export interface WebhookThreadOptions extends Omit<WebhookListenOptions, 'tokens'> {
  /** The tokens file's text and its name, parsed again in the thread (ApiTokens.parse). */
  tokens?: { text: string; source: string } | undefined;
  reservedNamespaces: ReservedNamespaces;
  /** Where the thread's answers are counted and timed, as the API port's are (operation `validate`). */
  registry?: Registry | undefined;
  /** The thread ended without being asked to (the port is then no longer answered). */
  onFailure(err: Error): void;
}

/** What the thread starts from (workerData): values a structured clone carries. */
export interface WebhookWorkerData extends Omit<WebhookThreadOptions, 'reservedNamespaces' | 'registry' | 'onFailure'> {
  reservedNamespaces: readonly string[];
}

/** The thread's messages to the gateway. */
export type FromWebhookThread =
  | { type: 'listening'; port: number }
  | { type: 'failed'; message: string }
  | { type: 'review'; id: number; body: unknown }
  | { type: 'answered'; reason: StatusReason | 'Success'; seconds: number }
  | { type: 'log'; obj: object; msg: string }
  | { type: 'closed' };

/** The gateway's messages to the thread. */
export type ToWebhookThread =
  | { type: 'reviewed'; id: number; answer: object }
  | { type: 'refused'; id: number; error: ApiErrorBody }
  | { type: 'close' };

/**
 * The thread's module: built, webhook-worker.js beside this one; from source (tests run the .ts files), the .ts one
 * through tsx, which resolves the `.js` imports to their sources.
 */
function workerEntry(): { url: URL; execArgv: string[] } {
  const fromSource = import.meta.url.endsWith('.ts');
  return fromSource
    ? { url: new URL('./webhook-worker.ts', import.meta.url), execArgv: ['--import', 'tsx', '--conditions=source'] }
    : { url: new URL('./webhook-worker.js', import.meta.url), execArgv: [] };
}

export async function serveWebhookThread(
  handler: WebhookJudge,
  opts: WebhookThreadOptions,
  log: DispatchLogger,
): Promise<Served> {
  const metrics = opts.registry ? RequestMetrics.of(opts.registry) : undefined;
  const { registry: _registry, onFailure, reservedNamespaces, ...rest } = opts;
  const data: WebhookWorkerData = { ...rest, reservedNamespaces: reservedNamespaces.entries };
  const entry = workerEntry();
  const worker = new Worker(entry.url, { workerData: data, execArgv: entry.execArgv });
  const post = (m: ToWebhookThread) => worker.postMessage(m);
  let closing = false;
  let exited = false;
  let failure: Error | undefined;
  let closed: () => void = () => undefined;
  const ready = new Promise<number>((resolve, reject) => {
    worker.on('message', (m: FromWebhookThread) => {
      switch (m.type) {
        case 'listening':
          return resolve(m.port);
        case 'failed':
          return reject(new Error(m.message));
        case 'answered':
          return metrics?.answered(WEBHOOK_OPERATION, m.reason, m.seconds);
        case 'log':
          return log.error(m.obj, m.msg);
        case 'closed':
          return closed();
        case 'review':
          review(m.body, handler).then(
            (answer) => post({ type: 'reviewed', id: m.id, answer }),
            (err: unknown) => {
              const error = toApiError(err);
              if (error.reason === 'InternalError') log.error({ err, path: '/validate' }, 'request failed');
              post({ type: 'refused', id: m.id, error });
            },
          );
      }
    });
    // An uncaught error ends the thread: 'exit' follows, which reports it.
    worker.on('error', (err) => {
      failure = err;
    });
    worker.on('exit', (code) => {
      exited = true;
      reject(failure ?? new Error(`the webhook thread exited (${code}) before it listened`));
      closed();
      if (!closing) onFailure(failure ?? new Error(`the webhook thread exited (${code})`));
    });
  });
  let port: number;
  try {
    port = await ready;
  } catch (err) {
    closing = true;
    await worker.terminate();
    throw err;
  }
  return {
    port,
    async close() {
      closing = true;
      if (exited) return;
      // The thread's server waits for the reviews it is answering, some of which may be asked of this thread.
      const done = new Promise<void>((resolve) => {
        closed = resolve;
      });
      post({ type: 'close' });
      await done;
      await worker.terminate();
    },
  };
}
