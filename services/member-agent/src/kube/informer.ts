import type { ObjectMeta } from '@flotilla/api';
import { backoffDelay, kubeError, statusOf, type KubeRequest } from './errors.js';

/** A raw object as the API server sends it. */
export interface RawObject {
  metadata?: Partial<Pick<ObjectMeta, 'name' | 'namespace' | 'resourceVersion'>>;
  [field: string]: unknown;
}

/** List and watch of one resource, as @kubernetes/client-node does them (see client-node-api.ts). */
export interface ListWatchClient {
  /** One page of the list; `resourceVersion` is the list's. */
  list(opts: {
    labelSelector?: string;
    limit: number;
    continueToken?: string;
  }): Promise<{ items: RawObject[]; resourceVersion: string; continueToken?: string }>;
  /** Opens a watch; `done` is called once when it ends (with the error, if any). Returns how to stop it. */
  watch(
    params: Record<string, string | number | boolean | undefined>,
    onEvent: (type: string, object: RawObject) => void,
    done: (err: unknown) => void,
  ): Promise<{ abort(): void }>;
}

export interface MemberInformerOptions<T> {
  cluster: string;
  client: ListWatchClient;
  /** What the informer lists and watches, in RBAC's terms (for error messages). */
  request: Omit<KubeRequest, 'verb'>;
  labelSelector?: string;
  /** Keeps what the driver reads of each object (client-go's transform); undefined drops the object. */
  project(raw: RawObject): T | undefined;
  /** Called after the list and after each change (the driver debounces). */
  onChange(): void;
  /** Called on each failed list or watch, with the typed error (KubeAccessError on 401 / 403). */
  onError(err: Error): void;
  /** Called when a watch is refused with 410 Gone (its resourceVersion compacted away), before the informer lists. */
  onExpired?(resourceVersion: string): void;
  /**
   * How long each watch asks the server to keep it open (`timeoutSeconds`), ±20 % so watches do not all end together;
   * it then resumes from the last resourceVersion it saw. Default 300 (client-go's reflector: 5 to 10 minutes).
   */
  watchTimeoutSeconds?: number;
  backoff?: { baseMs: number; maxMs: number };
  pageSize?: number;
  random?: () => number;
}

const sleep = (ms: number, signal: { stopped: boolean; wake?: () => void }) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.wake = () => {
      clearTimeout(t);
      resolve();
    };
  });

/** Thrown out of a watch that the server ended with 410 Gone: the informer lists again. */
class Expired extends Error {
  constructor(readonly resourceVersion: string) {
    super(`watch from resourceVersion ${resourceVersion} expired (410 Gone)`);
  }
}

export const DEFAULT_WATCH_TIMEOUT_SECONDS = 300;

/**
 * client-go's reflector and store over @kubernetes/client-node: lists in pages, then watches from the list's
 * resourceVersion with bookmarks, follows each event's resourceVersion, resumes a watch the server closed from the
 * last one it saw, lists again on 410 Gone, and backs off with jitter on errors. The cache keeps projections only.
 */
export class MemberInformer<T> {
  readonly cache = new Map<string, T>();
  /** True once a list completed; stays true across relists (the cache is replaced at once). */
  synced = false;
  /** The last list or watch error; cleared by the next successful list. */
  lastError: Error | undefined;
  private readonly state: { stopped: boolean; wake?: () => void } = { stopped: false };
  /** Ends the running watch (stop()). */
  private cancelWatch: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private firstSync!: Promise<void>;
  private resolveFirstSync!: () => void;

  constructor(private readonly o: MemberInformerOptions<T>) {
    const t = o.watchTimeoutSeconds;
    if (t !== undefined && (!Number.isInteger(t) || t < 1))
      throw new RangeError(`watchTimeoutSeconds: expected a whole number of seconds >= 1, got ${t}`);
  }

  /** Starts the list-watch loop; resolves once the first list is in the cache (it keeps retrying until then). */
  start(): Promise<void> {
    this.firstSync = new Promise((r) => {
      this.resolveFirstSync = r;
    });
    this.loop = this.run();
    return this.firstSync;
  }

  /** Resolves once synced or stopped, or after `ms`: whichever comes first. */
  async waitForSync(ms: number): Promise<boolean> {
    if (this.synced) return true;
    let t: NodeJS.Timeout | undefined;
    await Promise.race([this.firstSync, new Promise((r) => (t = setTimeout(r, ms)))]);
    clearTimeout(t);
    return this.synced;
  }

  async stop(): Promise<void> {
    this.state.stopped = true;
    this.state.wake?.();
    this.cancelWatch?.();
    this.resolveFirstSync?.();
    await this.loop;
  }

  /** Cuts a backoff short: the API server is known to answer again. */
  retryNow(): void {
    this.state.wake?.();
  }

  /** Puts what a write returned into the cache at once, so the next reconcile does not repeat the write. */
  upsert(raw: RawObject): void {
    const v = this.o.project(raw);
    const key = keyOf(raw);
    if (v === undefined) this.cache.delete(key);
    else this.cache.set(key, v);
  }

  private async run(): Promise<void> {
    let attempt = 0;
    const random = this.o.random ?? Math.random;
    const backoff = this.o.backoff ?? { baseMs: 500, maxMs: 10_000 };
    while (!this.state.stopped) {
      let verb = 'list';
      try {
        let rv = await this.list();
        attempt = 0;
        verb = 'watch';
        for (;;) {
          if (this.state.stopped) return;
          const started = Date.now();
          const next = await this.watchFrom(rv);
          rv = next.rv;
          // A watch the server closes at once, again and again, must not spin: count it as a failure.
          if (!next.events && Date.now() - started < 1000) {
            await sleep(backoffDelay(attempt++, backoff, random), this.state);
          } else attempt = 0;
        }
      } catch (err) {
        if (this.state.stopped) return;
        if (err instanceof Expired) this.o.onExpired?.(err.resourceVersion);
        else {
          const typed = kubeError(this.o.cluster, { verb, ...this.o.request }, err);
          this.lastError = typed;
          this.o.onError(typed);
          await sleep(backoffDelay(attempt++, backoff, random), this.state);
        }
      }
    }
  }

  /** Lists every page into a fresh cache; returns the list's resourceVersion. */
  private async list(): Promise<string> {
    const next = new Map<string, T>();
    let continueToken: string | undefined;
    let rv = '';
    do {
      const page = await this.o.client.list({
        ...(this.o.labelSelector ? { labelSelector: this.o.labelSelector } : {}),
        limit: this.o.pageSize ?? 500,
        ...(continueToken ? { continueToken } : {}),
      });
      for (const raw of page.items) {
        const v = this.o.project(raw);
        if (v !== undefined) next.set(keyOf(raw), v);
      }
      rv = page.resourceVersion;
      continueToken = page.continueToken || undefined;
    } while (continueToken && !this.state.stopped);
    this.cache.clear();
    for (const [k, v] of next) this.cache.set(k, v);
    this.synced = true;
    this.lastError = undefined;
    this.resolveFirstSync();
    this.o.onChange();
    return rv;
  }

  private watchTimeoutSeconds(): number {
    const base = this.o.watchTimeoutSeconds ?? DEFAULT_WATCH_TIMEOUT_SECONDS;
    return Math.max(1, Math.round(base * (0.8 + 0.4 * (this.o.random ?? Math.random)())));
  }

  /** One watch from `rv`; resolves with the last resourceVersion seen when the server ends it normally. */
  private watchFrom(rv: string): Promise<{ rv: string; events: number }> {
    return new Promise((resolve, reject) => {
      let last = rv;
      let events = 0;
      let settled = false;
      let handle: { abort(): void } | undefined;
      // Settles once, whoever comes first: the server ending the watch, a 410, an error, or stop().
      const settle = (outcome: { err?: unknown }) => {
        if (settled) return;
        settled = true;
        this.cancelWatch = undefined;
        handle?.abort();
        if (outcome.err !== undefined) reject(outcome.err);
        else resolve({ rv: last, events });
      };
      this.cancelWatch = () => settle({});
      const onEvent = (type: string, obj: RawObject) => {
        if (settled) return;
        if (type === 'ERROR') {
          const { code } = statusOf(obj);
          settle({ err: code === 410 ? new Expired(last) : Object.assign(new Error(statusOf(obj).message), { code }) });
          return;
        }
        const objRv = obj?.metadata?.resourceVersion;
        if (objRv) last = objRv;
        if (type === 'BOOKMARK') return;
        events++;
        if (type === 'DELETED') this.cache.delete(keyOf(obj));
        else this.upsert(obj);
        this.o.onChange();
      };
      const done = (err: unknown) => settle(err && !isAbort(err) ? { err } : {});
      this.o.client
        .watch(
          {
            resourceVersion: rv,
            allowWatchBookmarks: true,
            // the server ends each watch after a while (as client-go's reflector asks), so a stale one never lingers
            timeoutSeconds: this.watchTimeoutSeconds(),
            ...(this.o.labelSelector ? { labelSelector: this.o.labelSelector } : {}),
          },
          onEvent,
          done,
        )
        .then(
          (w) => {
            handle = w;
            if (settled || this.state.stopped) w.abort();
          },
          (err: unknown) => settle({ err }),
        );
    });
  }
}

export function keyOf(raw: RawObject): string {
  return `${raw.metadata?.namespace ?? ''}/${raw.metadata?.name ?? ''}`;
}

function isAbort(err: unknown): boolean {
  return (err as { name?: string })?.name === 'AbortError' || (err as { type?: string })?.type === 'aborted';
}
