import type { Registry } from 'prom-client';
import { GracefulGate } from '@flotilla/runtime';
import { type Backoff, backoffDelay } from './backoff.js';
import type { KubeApi, RawObject, WatchParams } from './kube-api.js';
import {
  describeKubeError,
  isAbortError,
  isGone,
  type KubeRequest,
  statusOf,
  toKubeApiError,
} from './kube-api-error.js';
import { kubeInformerMetrics } from './informer-metrics.js';
import type { ResourceInfo } from './resource-path.js';

/** List and watch of one resource, cluster-wide: KubeApi's (`listWatchOf`), or a scripted one in tests. */
export interface ListWatchClient {
  /** One page of the list; `resourceVersion` is the list's. */
  list(opts: {
    labelSelector?: string;
    limit: number;
    continueToken?: string;
  }): Promise<{ items: RawObject[]; resourceVersion: string; continueToken?: string }>;
  /** Opens a watch; `done` is called once when it ends (with the error, if any). Returns how to stop it. */
  watch(
    params: WatchParams,
    onEvent: (type: string, object: RawObject) => void,
    done: (err: unknown) => void,
  ): Promise<{ abort(): void }>;
}

/** `resource` of `api`, as an informer lists and watches it. */
export function listWatchOf(api: KubeApi, resource: ResourceInfo): ListWatchClient {
  return {
    async list({ labelSelector, limit, continueToken }) {
      const l = await api.list(resource, { labelSelector, limit, continueToken });
      return {
        items: l.items ?? [],
        resourceVersion: l.metadata?.resourceVersion ?? '',
        ...(l.metadata?.continue ? { continueToken: l.metadata.continue } : {}),
      };
    },
    watch: (params, onEvent, done) => api.watch(resource, params, onEvent, done),
  };
}

/** byIndex's answer for a value no object has. */
const NONE: readonly never[] = Object.freeze([]);

/** A change in an informer's cache: a key upserted or deleted (the controller kit's WatchEvent). */
export interface KubeInformerEvent<T = unknown> {
  type: 'upsert' | 'delete';
  key: string;
  /** The object's resourceVersion as a number (0 when it is not one). */
  revision: number;
  /**
   * A delete's object as the cache held it last (its projection): gone from the cache when the event comes, and what
   * a subscriber needs to tell whose it was (the workload a deleted pod belonged to).
   */
  deleted?: T;
}

/** Where an informer's readiness goes: the service's readiness gates (/readyz names a closed one, with why). */
export interface ReadinessSink {
  set(gate: string, open: boolean, reason?: string): void;
}

/** The defaults of every informer, defined once. */
export const INFORMER_DEFAULTS = Object.freeze({
  /** client-go's reflector asks for 5 to 10 minutes; here ±20 % around this, so watches do not all end together. */
  watchTimeoutSeconds: 300,
  backoff: Object.freeze({ baseMs: 500, maxMs: 10_000 }),
  /** Objects per page of a list: the whole list is never held at once, as JSON or as objects. */
  pageSize: 500,
  /** How long a synced cache may be relisting after an error before its readiness gate closes. */
  readinessGraceMs: 5_000,
});

export interface KubeInformerOptions<T> {
  client: ListWatchClient;
  /** What is listed and watched, in RBAC's terms (errors name it). */
  request: Omit<KubeRequest, 'verb'>;
  /** The cache's name in metrics (`resource`) and readiness, e.g. apps/v1/Deployment; also its `kind`. */
  name: string;
  /** The API server's name in metrics (`cluster`): a member cluster's name, or `host`. */
  server: string;
  labelSelector?: string;
  /** Keeps what is read of each object (client-go's transform); undefined drops the object. */
  project(raw: RawObject): T | undefined;
  /** The cache key of an object; `namespace/name` by default. */
  key?: (raw: RawObject) => string;
  /** Turns a failed list or watch into the error handed to `onError` (a KubeApiError by default). */
  toError?: (err: unknown, request: KubeRequest) => Error;
  /** Called after each list and each change (for a reconcile of everything; subscribers get keys). */
  onChange?(): void;
  /** Called on each failed list or watch, with the error; it is retried after a backoff. */
  onError?(err: Error): void;
  /** Called after each complete list (the first, and each relist after an expiry or a failure). */
  onListed?(): void;
  /** Called when a watch is refused with 410 Gone (its resourceVersion compacted away), before the informer lists. */
  onExpired?(resourceVersion: string): void;
  /** How long each watch asks the server to keep it open (`timeoutSeconds`), ±20 %; then it resumes. */
  watchTimeoutSeconds?: number;
  /**
   * Named indexes over the cache (client-go's Indexers): each function gives the index values of an object, and
   * `byIndex(name, value)` the objects that have that value, kept up to date as the cache changes, so a reader that
   * asks for "the pods of this label" each pass does not walk every pod each pass.
   */
  indexers?: Readonly<Record<string, (value: T) => readonly string[]>>;
  backoff?: Backoff;
  pageSize?: number;
  /**
   * The gate `kube-informer:<server>/<name>`: closed until the first list; afterwards closed once the cache has been
   * relisting after an error for `readinessGraceMs` (one failed request does not flap it), open at the next list.
   */
  readiness?: ReadinessSink;
  readinessGraceMs?: number;
  /** The service's registry: lists, errors, expiries, objects and sync of this cache (kubeInformerMetrics). */
  registry?: Registry;
  random?: () => number;
}

/** Thrown out of a watch that the server ended with 410 Gone: the informer lists again. */
class Expired extends Error {
  constructor(readonly resourceVersion: string) {
    super(`watch from resourceVersion ${resourceVersion} expired (410 Gone)`);
  }
}

interface RunState {
  stopped: boolean;
  wake?: () => void;
}

const sleep = (ms: number, state: RunState) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    state.wake = () => {
      clearTimeout(t);
      resolve();
    };
  });

/**
 * client-go's reflector and store over @kubernetes/client-node's Watch: lists in pages, then watches from the list's
 * resourceVersion with bookmarks and a jittered `timeoutSeconds`, follows each event's resourceVersion, resumes a
 * watch the server closed from the last one it saw, lists again on 410 Gone, and backs off with jitter on errors.
 * The cache keeps projections only. (client-node's own ListWatch has no paging, timeout, bookmarks or backoff.)
 *
 * A watch source of the controller kit: `subscribe` hands each subscriber every change by key, a relist's
 * differences included (deletions too), so nothing that happened while the watch was away is missed.
 */
export class KubeInformer<T> {
  readonly cache = new Map<string, T>();
  /** Its name (`kind` of the controller kit's WatchSource). */
  readonly kind: string;
  readonly bucket = 'kube';
  /** True once a list completed; stays true across relists (the cache is replaced at once). */
  synced = false;
  /** The last list or watch error; cleared by the next successful list. */
  lastError: Error | undefined;
  private state: RunState = { stopped: true };
  /** The resourceVersion of each cached object: a relist tells subscribers only what changed. */
  private readonly versions = new Map<string, string>();
  /** index name → index value → the keys of the objects that have it (see `indexers`). */
  private readonly indexes = new Map<string, Map<string, Set<string>>>();
  private readonly handlers = new Set<(e: KubeInformerEvent<T>) => void | Promise<void>>();
  /** The newest resourceVersion the cache has caught up with (its list's or its last watch event's). */
  private latest = '';
  private cancelWatch: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private firstSync: Promise<void> = Promise.resolve();
  private resolveFirstSync: () => void = () => undefined;
  private firstOutcome: Promise<void> = Promise.resolve();
  private resolveFirstOutcome: () => void = () => undefined;
  private startedBySubscribe = false;
  private readonly keyOf: (raw: RawObject) => string;
  private readonly gate: string;
  /** The readiness gate of the current run (a new one per start). */
  private readinessGate: GracefulGate | undefined;
  private readonly metrics: {
    lists(): void;
    errors(): void;
    expired(): void;
    /** Whether the `objects` gauge reads this cache's size (while the informer runs). */
    counting(on: boolean): void;
    synced(on: boolean): void;
  };

  constructor(private readonly o: KubeInformerOptions<T>) {
    const t = o.watchTimeoutSeconds;
    if (t !== undefined && (!Number.isInteger(t) || t < 1))
      throw new RangeError(`watchTimeoutSeconds: expected a whole number of seconds >= 1, got ${t}`);
    this.kind = o.name;
    this.keyOf = o.key ?? namespacedName;
    this.gate = `kube-informer:${o.server}/${o.name}`;
    for (const name of Object.keys(o.indexers ?? {})) this.indexes.set(name, new Map());
    if (o.registry) {
      const m = kubeInformerMetrics(o.registry);
      const labels = { cluster: o.server, resource: o.name };
      const [lists, errors, expired] = [m.lists, m.errors, m.watchExpired].map((c) => c.labels(labels));
      const [objects, synced] = [m.objects, m.synced].map((g) => g.labels(labels));
      const setObjects = () => objects!.set(this.cache.size);
      this.metrics = {
        lists: () => lists!.inc(),
        errors: () => errors!.inc(),
        expired: () => expired!.inc(),
        counting: (on) => {
          // Stopped, it keeps the size it had, as a gauge set on every change did.
          setObjects();
          if (on) m.sizes.add(setObjects);
          else m.sizes.delete(setObjects);
        },
        synced: (on) => synced!.set(on ? 1 : 0),
      };
    } else this.metrics = { lists() {}, errors() {}, expired() {}, counting() {}, synced() {} };
  }

  get size(): number {
    return this.cache.size;
  }

  keys(): Iterable<string> {
    return this.cache.keys();
  }

  values(): Iterable<T> {
    return this.cache.values();
  }

  get(key: string): T | undefined {
    return this.cache.get(key);
  }

  /** The cached objects whose index `name` has `value` (client-go's ByIndex); `name` must be one of `indexers`. */
  byIndex(name: string, value: string): readonly T[] {
    const index = this.indexes.get(name);
    if (!index) throw new RangeError(`informer ${this.kind}: no index named ${name}`);
    const keys = index.get(value);
    // A miss is the common answer (a pod's label that selects no workload): no array is made for it.
    if (!keys) return NONE;
    const out: T[] = [];
    for (const key of keys) {
      const v = this.cache.get(key);
      if (v !== undefined) out.push(v);
    }
    return out;
  }

  /** Puts `v` in the cache under `key` (undefined: takes the key out), with its index entries. */
  private store(key: string, v: T | undefined): void {
    if (this.indexes.size > 0) {
      const before = this.cache.get(key);
      for (const [name, index] of this.indexes) {
        const of = this.o.indexers![name]!;
        if (before !== undefined)
          for (const value of of(before)) {
            const keys = index.get(value);
            keys?.delete(key);
            if (keys?.size === 0) index.delete(value);
          }
        if (v !== undefined)
          for (const value of of(v)) {
            const keys = index.get(value);
            if (keys) keys.add(key);
            else index.set(value, new Set([key]));
          }
      }
    }
    if (v === undefined) this.cache.delete(key);
    else this.cache.set(key, v);
  }

  /** The newest resourceVersion the cache has caught up with. */
  get seen(): string {
    return this.latest;
  }

  /** Starts the list-watch loop; resolves once the first list is in the cache (it keeps retrying until then). */
  start(): Promise<void> {
    if (!this.state.stopped) return this.firstSync;
    this.state = { stopped: false };
    this.synced = false;
    this.metrics.counting(true);
    this.firstSync = new Promise((r) => {
      this.resolveFirstSync = r;
    });
    this.firstOutcome = new Promise((r) => {
      this.resolveFirstOutcome = r;
    });
    this.readinessGate?.release();
    this.readinessGate = this.o.readiness
      ? new GracefulGate({
          sink: this.o.readiness,
          gate: this.gate,
          graceMs: this.o.readinessGraceMs ?? INFORMER_DEFAULTS.readinessGraceMs,
          startingReason: 'cache not synced: listing',
        })
      : undefined;
    this.loop = this.run(this.state);
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
    const state = this.state;
    state.stopped = true;
    state.wake?.();
    this.cancelWatch?.();
    this.resolveFirstSync();
    this.resolveFirstOutcome();
    await this.loop;
    this.metrics.synced(false);
    this.metrics.counting(false);
    // A stopped cache is read by no one: it holds no service back.
    this.readinessGate?.release();
  }

  /**
   * The controller kit's subscription: the first subscriber starts the informer, the last one to leave stops it (if
   * it started it). `synced` resolves after the first list, or after the first failure: it retries by itself, and
   * `synced` the field tells whether an object missing from the cache may be taken as gone.
   */
  subscribe(handler: (e: KubeInformerEvent<T>) => void | Promise<void>): {
    synced: Promise<void>;
    unsubscribe(): void;
  } {
    this.handlers.add(handler);
    if (this.state.stopped) {
      this.startedBySubscribe = true;
      void this.start();
    }
    return {
      synced: this.firstOutcome,
      unsubscribe: () => {
        this.handlers.delete(handler);
        if (this.handlers.size === 0 && this.startedBySubscribe) {
          this.startedBySubscribe = false;
          void this.stop();
        }
      },
    };
  }

  /** Cuts a backoff short: the API server is known to answer again. */
  retryNow(): void {
    this.state.wake?.();
  }

  /** Puts what a write returned into the cache at once, so the next reconcile does not repeat the write. */
  upsert(raw: RawObject): void {
    const key = this.keyOf(raw);
    const v = this.o.project(raw);
    if (v === undefined) this.remove(key);
    else {
      this.store(key, v);
      this.versions.set(key, raw.metadata?.resourceVersion ?? '');
    }
  }

  /** Takes an object out of the cache at once (what a delete returned). */
  remove(key: string): void {
    this.store(key, undefined);
    this.versions.delete(key);
  }

  private emit(type: KubeInformerEvent['type'], key: string, resourceVersion: string | undefined, deleted?: T): void {
    if (this.handlers.size === 0) return;
    const event: KubeInformerEvent<T> = {
      type,
      key,
      revision: Number(resourceVersion) || 0,
      ...(deleted !== undefined ? { deleted } : {}),
    };
    for (const h of this.handlers) void h(event);
  }

  private async run(state: RunState): Promise<void> {
    let attempt = 0;
    const random = this.o.random ?? Math.random;
    const backoff = this.o.backoff ?? INFORMER_DEFAULTS.backoff;
    while (!state.stopped) {
      let verb = 'list';
      try {
        let rv = await this.list(state);
        if (state.stopped) return;
        attempt = 0;
        verb = 'watch';
        for (;;) {
          if (state.stopped) return;
          const started = Date.now();
          const next = await this.watchFrom(rv, state);
          rv = next.rv;
          // A watch the server closes at once, again and again, must not spin: count it as a failure.
          if (!next.events && Date.now() - started < 1000) {
            await sleep(backoffDelay(attempt++, backoff, random), state);
          } else attempt = 0;
        }
      } catch (err) {
        if (state.stopped) return;
        if (err instanceof Expired) {
          this.metrics.expired();
          this.o.onExpired?.(err.resourceVersion);
        } else {
          const request = { verb, ...this.o.request };
          const typed = this.o.toError ? this.o.toError(err, request) : toKubeApiError(err, request);
          this.lastError = typed;
          this.metrics.errors();
          this.metrics.synced(false);
          this.readinessGate?.failed(`cache not synced: ${verb} failed: ${describeKubeError(err)}`);
          this.o.onError?.(typed);
          this.resolveFirstOutcome();
          await sleep(backoffDelay(attempt++, backoff, random), state);
        }
      }
    }
  }

  /** Lists every page into a fresh cache, telling subscribers what changed; returns the list's resourceVersion. */
  private async list(state: RunState): Promise<string> {
    const next = new Map<string, T>();
    const versions = new Map<string, string>();
    let continueToken: string | undefined;
    let rv = '';
    do {
      const page = await this.o.client.list({
        ...(this.o.labelSelector ? { labelSelector: this.o.labelSelector } : {}),
        limit: this.o.pageSize ?? INFORMER_DEFAULTS.pageSize,
        ...(continueToken ? { continueToken } : {}),
      });
      for (const raw of page.items) {
        const v = this.o.project(raw);
        if (v === undefined) continue;
        const key = this.keyOf(raw);
        next.set(key, v);
        versions.set(key, raw.metadata?.resourceVersion ?? '');
      }
      rv = page.resourceVersion;
      continueToken = page.continueToken || undefined;
    } while (continueToken && !state.stopped);
    if (state.stopped) return rv;
    const gone = [...this.versions.keys()].filter((k) => !versions.has(k)).map((k) => [k, this.cache.get(k)] as const);
    const changed = [...versions].filter(([k, v]) => this.versions.get(k) !== v);
    this.cache.clear();
    this.versions.clear();
    for (const index of this.indexes.values()) index.clear();
    for (const [k, v] of next) this.store(k, v);
    for (const [k, v] of versions) this.versions.set(k, v);
    this.latest = rv;
    this.synced = true;
    this.lastError = undefined;
    this.metrics.lists();
    this.metrics.synced(true);
    this.readinessGate?.ok();
    this.resolveFirstSync();
    this.resolveFirstOutcome();
    this.o.onListed?.();
    for (const [k, last] of gone) this.emit('delete', k, rv, last);
    for (const [k, v] of changed) this.emit('upsert', k, v);
    this.o.onChange?.();
    return rv;
  }

  private watchTimeoutSeconds(): number {
    const base = this.o.watchTimeoutSeconds ?? INFORMER_DEFAULTS.watchTimeoutSeconds;
    return Math.max(1, Math.round(base * (0.8 + 0.4 * (this.o.random ?? Math.random)())));
  }

  /** One watch from `rv`; resolves with the last resourceVersion seen when the server ends it normally. */
  private watchFrom(rv: string, state: RunState): Promise<{ rv: string; events: number }> {
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
          const { code, message } = statusOf(obj);
          settle({ err: isGone(obj) ? new Expired(last) : Object.assign(new Error(message), { code }) });
          return;
        }
        const objRv = obj?.metadata?.resourceVersion;
        if (objRv) last = objRv;
        this.latest = last;
        if (type === 'BOOKMARK') return;
        events++;
        const key = this.keyOf(obj);
        if (type === 'DELETED') {
          const last = this.cache.get(key);
          if (last !== undefined) {
            this.remove(key);
            this.emit('delete', key, objRv, last);
          }
        } else {
          const before = this.cache.get(key);
          this.upsert(obj);
          if (this.cache.has(key)) this.emit('upsert', key, objRv);
          else if (before !== undefined) this.emit('delete', key, objRv, before);
        }
        this.o.onChange?.();
      };
      const done = (err: unknown) => settle(err && !isAbortError(err) ? { err } : {});
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
            if (settled || state.stopped) w.abort();
          },
          (err: unknown) => settle({ err }),
        );
    });
  }
}

/** `namespace/name` (`/name` for a cluster-scoped object): the default cache key. */
export function namespacedName(raw: RawObject): string {
  return `${raw.metadata?.namespace ?? ''}/${raw.metadata?.name ?? ''}`;
}
