import type { KindInfo } from '@flotilla/api';
import type { WatchEvent, WatchSource } from '@flotilla/controller';
import { objectKey } from '@flotilla/store';
// client-node's modules one by one, not its index (see @flotilla/kube-client's RawObjectApi).
import { ListWatch } from '@kubernetes/client-node/dist/cache.js';
import { ADD, DELETE, ERROR, UPDATE } from '@kubernetes/client-node/dist/informer.js';
import type { KubernetesObject } from '@kubernetes/client-node/dist/types.js';
import { Watch } from '@kubernetes/client-node/dist/watch.js';
import { type CachedObject, cachedHostObject } from './cached.js';
import type { AnyObject } from './content.js';
import { HostApi } from './host-api.js';

/** Objects per page of a list: the whole list never has to be held at once, as JSON or as objects. */
export const LIST_PAGE_SIZE = 500;

export interface Backoff {
  initialMs: number;
  maxMs: number;
}

/** Told when a kind's list-and-watch loses the host API server and when it has it again. */
export interface HostConnectionListener {
  lost(part: string, error: string): void;
  restored(part: string): void;
}

export interface HostInformerOptions {
  info: KindInfo;
  api: HostApi;
  connection: HostConnectionListener;
  backoff: Backoff;
}

/**
 * One kind of the host API server, cached: client-node's ListWatch (a list, then a watch from the list's
 * resourceVersion; a 410 Gone relists) restarted after any error with doubling backoff, once a probe answers again.
 * Watch events resume from the last resourceVersion seen, so nothing that happened while it was away is missed:
 * either the watch replays it or the relist's differences (deletions included) are delivered.
 * The cache keeps what the bridge decides by (CachedObject: identity, resourceVersion, finalizers, a digest of the
 * mirrored content), never whole objects: lists come in pages and each page and each watch event is reduced to that
 * before it is cached. A watch source of the controller kit: its keys are Flotilla's object keys
 * (`Kind.namespace.name`).
 */
export class HostInformer implements WatchSource {
  readonly kind: string;
  readonly bucket = 'host';
  private readonly handlers = new Set<(e: WatchEvent) => void | Promise<void>>();
  private starting: Promise<void> | undefined;
  private readonly listWatch: ListWatch<KubernetesObject>;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private delayMs: number;
  private failed = false;
  private listed = false;

  constructor(private readonly opts: HostInformerOptions) {
    const { info, api } = opts;
    this.kind = info.kind;
    this.delayMs = opts.backoff.initialMs;
    // The generic client hands over the API server's JSON as it is (timestamps stay strings): AnyObject.
    const project = (o: AnyObject) => cachedHostObject(o, info.apiVersion, info.kind);
    this.listWatch = new ListWatch(
      HostApi.watchPath(info),
      new ProjectingWatch(api.kubeConfig, project),
      () => this.listPages(project) as never,
      false,
    );
    const changed = (o: KubernetesObject) => this.emit('upsert', o);
    this.listWatch.on(ADD, changed);
    this.listWatch.on(UPDATE, changed);
    this.listWatch.on(DELETE, (o) => this.emit('delete', o));
    this.listWatch.on(ERROR, (err) => this.lost(err));
  }

  /**
   * The first subscription starts the list and watch; `synced` resolves after the first list, or after the first
   * failure (it retries by itself, and `synced` the getter tells whether the cache may be trusted yet).
   */
  subscribe(handler: (e: WatchEvent) => void | Promise<void>): { synced: Promise<void>; unsubscribe(): void } {
    this.handlers.add(handler);
    this.starting ??= this.start();
    return {
      synced: this.starting,
      unsubscribe: () => {
        this.handlers.delete(handler);
        if (this.handlers.size === 0) void this.stop();
      },
    };
  }

  get size(): number {
    return this.listWatch.list().length;
  }

  keys(): Iterable<string> {
    return this.listWatch.list().map((o) => this.keyOf(o as AnyObject));
  }

  keyOf(o: AnyObject): string {
    return objectKey({ kind: this.kind, namespace: o.metadata?.namespace, name: o.metadata?.name ?? '' });
  }

  /** Every page of the kind, each object reduced to what is cached; the list's resourceVersion is the last page's. */
  private async listPages(
    project: (o: AnyObject) => CachedObject,
  ): Promise<{ items: CachedObject[]; metadata: { resourceVersion: string } }> {
    const items: CachedObject[] = [];
    let continueToken: string | undefined;
    let resourceVersion = '';
    do {
      const page = await this.opts.api.list(this.opts.info, { limit: LIST_PAGE_SIZE, continueToken });
      for (const o of page.items) items.push(project(o));
      resourceVersion = page.metadata?.resourceVersion ?? '';
      continueToken = page.metadata?.continue || undefined;
    } while (continueToken && !this.stopped);
    return { items, metadata: { resourceVersion } };
  }

  private emit(type: 'upsert' | 'delete', o: KubernetesObject): void {
    const event = { type, key: this.keyOf(o as AnyObject), revision: Number(o.metadata?.resourceVersion) || 0 };
    for (const h of this.handlers) void h(event);
  }

  /** Lists and starts watching; resolves after the first list, or after the first failure (it retries by itself). */
  private async start(): Promise<void> {
    this.failed = false;
    await this.listWatch.start();
    if (!this.failed) this.connected();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    await this.listWatch.stop();
  }

  get(name: string, namespace?: string): CachedObject | undefined {
    return this.listWatch.get(name, namespace) as CachedObject | undefined;
  }

  list(): readonly CachedObject[] {
    return this.listWatch.list() as readonly CachedObject[];
  }

  /** The newest resourceVersion the cache has caught up with (its list's or its last watch event's). */
  get seen(): string {
    return this.listWatch.latestResourceVersion();
  }

  /**
   * True once a list has succeeded: before that an empty cache says nothing (client-go's HasSynced), and nothing may
   * be concluded from an object missing from it.
   */
  get synced(): boolean {
    return this.listed;
  }

  private connected(): void {
    this.listed = true;
    this.delayMs = this.opts.backoff.initialMs;
    this.opts.connection.restored(this.opts.info.kind);
  }

  private lost(err: unknown): void {
    this.failed = true;
    if (this.stopped) return;
    this.opts.connection.lost(this.opts.info.kind, describeError(err));
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    clearTimeout(this.retryTimer);
    const delay = this.delayMs;
    this.delayMs = Math.min(this.opts.backoff.maxMs, this.delayMs * 2);
    this.retryTimer = setTimeout(() => void this.retry(), delay);
  }

  private async retry(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.opts.api.probe(this.opts.info);
    } catch (err) {
      this.opts.connection.lost(this.opts.info.kind, describeError(err));
      this.scheduleRetry();
      return;
    }
    if (this.stopped) return;
    await this.start();
  }
}

/** A host error as one line: the HTTP status and message, or the network error's. */
export function describeError(err: unknown): string {
  if (err && typeof err === 'object') {
    const e = err as { code?: unknown; statusCode?: unknown; message?: unknown; body?: unknown };
    const status = typeof e.code === 'number' ? e.code : typeof e.statusCode === 'number' ? e.statusCode : undefined;
    const message = typeof e.message === 'string' ? (e.message.split('\n')[0] ?? '') : String(err);
    return status ? `HTTP ${status}: ${message}` : message;
  }
  return String(err);
}

/** client-node's Watch, handing each changed object over as the cache keeps it (Status errors and bookmarks as sent). */
class ProjectingWatch extends Watch {
  constructor(
    kubeConfig: ConstructorParameters<typeof Watch>[0],
    private readonly project: (o: AnyObject) => CachedObject,
  ) {
    super(kubeConfig);
  }

  override watch(...[path, params, callback, done]: Parameters<Watch['watch']>): ReturnType<Watch['watch']> {
    return super.watch(
      path,
      params,
      (phase, object, event) =>
        callback(phase, phase === 'ERROR' || phase === 'BOOKMARK' ? object : this.project(object as AnyObject), event),
      done,
    );
  }
}
