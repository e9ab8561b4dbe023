import {
  decodeJson,
  isUndecodable,
  kvSource,
  lastRevisionOf,
  listJson,
  KvWatchInclude,
  ownedString,
  RevisionWaiters,
  type Bus,
  type KV,
  type UndecodableValueError,
} from '@flotilla/bus';
import type { Registry } from 'prom-client';
import { InformerMetrics } from './informer-metrics.js';
import { kindFilter, refFromKey, type ObjectRef, type StoredObject } from './object.js';

export type InformerEvent<T> =
  | { type: 'upsert'; key: string; ref: ObjectRef; value: T; revision: number }
  | { type: 'delete'; key: string; ref: ObjectRef; revision: number };

export type InformerHandler<T> = (e: InformerEvent<T>) => void | Promise<void>;

/** For `kubeEvents`, keys are `<object key>.<reason>.<digest>`: read the object from the value's involvedObject. */
export type InformerBucket = 'objects' | 'status' | 'kubeEvents' | 'leases' | 'usage';
const BUCKETS: readonly InformerBucket[] = ['objects', 'status', 'kubeEvents', 'leases', 'usage'];

/**
 * What an owner keeps of each value (client-go's transform): the cache of a large kind stays small. Named, because
 * an informer is shared by every user in a process (see Informers), and they must agree on one projection.
 */
export interface Projection<In, Out> {
  name: string;
  project(value: In): Out;
}

/** Where an informer says whether its cache can be trusted: the runtime's ReadinessGates has this shape. */
export interface ReadinessSink {
  set(gate: string, open: boolean, reason?: string): void;
}

/** What an informer logs through: pino's call shape. */
export interface InformerLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** A user's hold on an informer: its handler gets every event from now on, the informer runs while any is held. */
export interface Subscription {
  /** Resolves once the cache is listed and this handler has seen every cached value. */
  readonly synced: Promise<void>;
  unsubscribe(): void;
}

export interface InformerOptions<T> {
  bus: Bus;
  bucket: InformerBucket;
  kind: string;
  /** Given the stored value (an object with its resourceVersion set, or a status record); default: kept whole. */
  projection?: Projection<never, T>;
  /** The handler of `start()`/`stop()`, for an informer with one owner; shared users call `subscribe`. */
  onEvent?: InformerHandler<T>;
  /** Handler errors, watch restarts and relists are logged here; silent without one. */
  logger?: InformerLogger;
  /** Where handler errors and watch restarts are counted (`flotilla_informer_*`). */
  registry?: Registry;
  /** Closed (gate `informer <bucket>/<kind>`) while the cache is not synced, is being rebuilt or its watch is cut. */
  readiness?: ReadinessSink;
  /**
   * How often the informer checks that what it caches is still in the bucket (a purge of the bucket's stream
   * removes values without a delete marker, and no watch hears of it). Default 30 s.
   */
  auditIntervalMs?: number;
  /** Wait before trying again after a watch or a list failed. Default 1 s. */
  retryDelayMs?: number;
}

export const INFORMER_DEFAULTS = { auditIntervalMs: 30_000, retryDelayMs: 1_000 } as const;

const DISCONNECTED = 'disconnected from NATS';

/** Stands for a listed value that could not be decoded: it is set aside, never cached. */
const UNDECODABLE: unique symbol = Symbol('undecodable');

/** Why the informer stopped following the bucket: it resumes from the last revision or relists. */
class Interruption extends Error {
  constructor(
    readonly reason: string,
    readonly relist: boolean,
  ) {
    super(reason);
  }
}

/**
 * A local cache of one kind (objects or status bucket), filled by one list and kept current by a watch that resumes
 * right after the list: the informer of client-go, over a KV bucket. Handlers run one at a time, in revision order.
 *
 * Supervised: a handler that throws is logged with the object and counted, and the next event goes on. A watch that
 * ends, fails or loses its connection is resumed from the last revision seen, or the cache is rebuilt by a relist when
 * that revision is gone (the bucket was purged or re-created); either is one log line and one count, and readiness
 * is closed until the cache is whole again. Cached values gone from the bucket without a delete (a purged stream)
 * are found by a periodic audit and lead to a relist. A value that cannot be decoded (not JSON, or gzipped past
 * MAX_DECODED_JSON_BYTES) is set aside: logged once and counted, and the cache keeps what it held for the key (a
 * delete would have its users act on an object that is still there); reading it again would fail alike.
 *
 * Several users share one informer (see Informers): it runs while any subscription is held and stops with the last.
 */
export class Informer<T = StoredObject> {
  readonly cache = new Map<string, { value: T; revision: number }>();
  readonly bucket: InformerBucket;
  readonly kind: string;
  private readonly handlers = new Set<InformerHandler<T>>();
  private holds = 0;
  /** The run of the current hold; a new run starts when the first hold is taken after the last was released. */
  private run?: { stopped: boolean; interrupt?: (i: Interruption) => void; synced: Promise<void> };
  /** One event at a time, to every handler, in order; replays to a late subscriber queue here too. */
  private delivering: Promise<void> = Promise.resolve();
  private lastRevision = 0;
  /** True while the watch follows the bucket from a whole cache (not listing, rebuilding or cut off). */
  private following = false;
  /** Callers of `caughtUp` waiting for a revision. */
  private readonly waiters = new RevisionWaiters();
  /** The watch of the current session (its count of changes received), while one follows the bucket. */
  private watch?: { getReceived(): number };
  /** Changes of the current watch applied and handed to the subscribers. */
  private appliedFromWatch = 0;
  /** `afterReceived` callers: each runs once `appliedFromWatch` reaches its target. */
  private readonly afterApplied: Array<{ target: number; run: () => void }> = [];
  private streamCreated?: string;
  private own?: Subscription;
  private readonly metrics?: InformerMetrics;
  private readonly projection?: Projection<never, T>;
  private readonly auditIntervalMs: number;
  private readonly retryDelayMs: number;
  /** The revision of each key's value last set aside, so that a relist logs it once only. */
  private readonly setAsideRevisions = new Map<string, number>();

  constructor(private readonly o: InformerOptions<T>) {
    if (!BUCKETS.includes(o.bucket))
      throw new RangeError(`Informer: bucket must be one of ${BUCKETS.join(', ')}, got ${JSON.stringify(o.bucket)}`);
    if (!o.kind) throw new RangeError('Informer: kind is required');
    this.bucket = o.bucket;
    this.kind = o.kind;
    this.projection = o.projection;
    this.auditIntervalMs = positive('auditIntervalMs', o.auditIntervalMs ?? INFORMER_DEFAULTS.auditIntervalMs);
    this.retryDelayMs = positive('retryDelayMs', o.retryDelayMs ?? INFORMER_DEFAULTS.retryDelayMs);
    this.metrics = o.registry ? InformerMetrics.of(o.registry) : undefined;
  }

  /** The projection's name, or undefined when values are kept whole. */
  get projectionName(): string | undefined {
    return this.projection?.name;
  }

  /** The readiness gate this informer closes while its cache cannot be trusted. */
  get gate(): string {
    return `informer ${this.bucket}/${this.kind}`;
  }

  get size(): number {
    return this.cache.size;
  }

  /**
   * The bucket revision this cache has caught up with: the list's last revision, then each event's. A write the
   * owner made at a higher revision is not in the cache yet.
   */
  get revision(): number {
    return this.lastRevision;
  }

  keys(): IterableIterator<string> {
    return this.cache.keys();
  }

  /**
   * Resolves true once the cache holds every write up to `revision` (read from the bucket, e.g. by
   * `lastRevisionOf`: then the cache holds what was written before that read), false at once when the informer is
   * not following the bucket (not synced, being rebuilt, its watch cut), or when it does not get there within
   * `timeoutMs`. On false the caller reads the bucket itself.
   */
  caughtUp(revision: number, timeoutMs: number): Promise<boolean> {
    if (!this.following) return Promise.resolve(false);
    if (this.lastRevision >= revision) return Promise.resolve(true);
    return this.waiters.wait(revision, timeoutMs);
  }

  /**
   * Resolves true once the cache holds every write of its kind made to the bucket before this call and its
   * subscribers have been handed them (one request for the kind's last revision, then `caughtUp`); false as
   * `caughtUp` says.
   */
  async caughtUpWithBucket(timeoutMs: number): Promise<boolean> {
    if (!this.following) return false;
    const revision = await lastRevisionOf(this.o.bus.jsm, this.bucketName, kindFilter(this.kind));
    if (!(await this.caughtUp(revision, timeoutMs))) return false;
    // The cache is updated before its subscribers are told (in order, one event at a time): wait for that too.
    await this.delivering;
    return true;
  }

  /**
   * Runs `run` once this informer has applied, and handed its subscribers, every change its watch had received when
   * this was called: at once when none waits. Another informer's subscriber uses it to act on what it was told only
   * after this one has been told what was written before (two watches of one bucket are each in order, not with each
   * other): the scheduler lets go of a binding's assumed pods once the cluster's summary that counts them is in.
   * While the cache is being listed or rebuilt, `run` waits until it is whole; a watch that ends hands what waits on
   * it to the next, which resumes with the changes it had not applied.
   */
  afterReceived(run: () => void): void {
    const target = this.watch?.getReceived() ?? 0;
    if (this.watch && this.afterApplied.length === 0 && this.appliedFromWatch >= target) run();
    else this.afterApplied.push({ target, run });
  }

  /** Runs the `afterReceived` callers the watch has reached (all of them with `all`), in the order they came. */
  private runAfterApplied(all = false): void {
    while (this.afterApplied.length && (all || this.afterApplied[0]!.target <= this.appliedFromWatch)) {
      const { run } = this.afterApplied.shift()!;
      try {
        run();
      } catch (err) {
        this.o.logger?.error({ err, bucket: this.bucket, kind: this.kind }, 'an afterReceived callback failed');
      }
    }
  }

  /** Lists, delivers every object to `onEvent` as an upsert, then follows changes. Resolves once the list is delivered. */
  start(): Promise<void> {
    this.own ??= this.subscribe(this.o.onEvent ?? (() => undefined));
    return this.own.synced;
  }

  stop(): void {
    this.own?.unsubscribe();
    this.own = undefined;
  }

  /**
   * Adds a handler; the first subscription starts the informer. A subscriber that comes after the list is handed
   * every cached value as an upsert first (client-go's AddEventHandler on a running informer), so it misses nothing.
   */
  subscribe(handler: InformerHandler<T>): Subscription {
    this.holds++;
    let run = this.run;
    if (!run || run.stopped) run = this.begin();
    const late = this.handlers.size > 0 || this.cache.size > 0;
    let active = true;
    const synced = run.synced.then(() => {
      if (!active) return;
      this.handlers.add(handler);
      // Every later event reaches the handler through `delivering`, so the replay comes first.
      if (late) return this.deliverTo(handler, this.snapshotEvents());
    });
    if (!late) this.handlers.add(handler);
    return {
      synced,
      unsubscribe: () => {
        if (!active) return;
        active = false;
        this.handlers.delete(handler);
        if (--this.holds === 0) this.end();
      },
    };
  }

  get(ref: ObjectRef): T | undefined {
    return this.cache.get(`${ref.kind}.${ref.namespace || '_'}.${ref.name}`)?.value;
  }

  values(): T[] {
    return [...this.cache.values()].map((v) => v.value);
  }

  private begin(): NonNullable<Informer<T>['run']> {
    let markSynced!: () => void;
    const run: NonNullable<Informer<T>['run']> = {
      stopped: false,
      synced: new Promise<void>((r) => (markSynced = r)),
    };
    this.run = run;
    this.cache.clear();
    this.lastRevision = 0;
    this.streamCreated = undefined;
    this.o.readiness?.set(this.gate, false, 'cache not synced: listing');
    void this.supervise(run, markSynced);
    return run;
  }

  private end(): void {
    const run = this.run;
    if (!run) return;
    run.stopped = true;
    this.setFollowing(false);
    run.interrupt?.(new Interruption('stopped', false));
    this.o.readiness?.set(this.gate, true);
    // Nothing more comes: no caller waits for ever.
    this.runAfterApplied(true);
  }

  private get kv(): KV {
    return this.o.bus[this.bucket];
  }

  private get streamName(): string {
    return `KV_${this.bucketName}`;
  }

  private get bucketName(): string {
    const names = this.o.bus.names;
    return {
      objects: names.objectsBucket,
      status: names.statusBucket,
      kubeEvents: names.kubeEventsBucket,
      leases: names.leasesBucket,
      usage: names.usageBucket,
    }[this.bucket];
  }

  /** Lists, follows, and after every interruption resumes or relists, until the run is stopped. */
  private async supervise(run: NonNullable<Informer<T>['run']>, markSynced: () => void): Promise<void> {
    let relist = true;
    let listed = false;
    let why = 'cache not synced: listing';
    while (!run.stopped) {
      try {
        if (relist) {
          this.o.readiness?.set(this.gate, false, why);
          await this.relist(run, listed);
          if (run.stopped) break;
          // The cache holds the bucket as listed now: what `afterReceived` callers waited for is in.
          this.runAfterApplied(true);
          listed = true;
          markSynced();
        }
        this.o.readiness?.set(this.gate, true);
        this.setFollowing(true);
        await this.follow(run);
        if (run.stopped) break;
        throw new Interruption('the watch ended', false);
      } catch (err) {
        this.setFollowing(false);
        if (run.stopped) break;
        const cause = err instanceof Interruption ? err.reason : `failed: ${(err as Error).message}`;
        const failed = !(err instanceof Interruption);
        if (!listed) {
          // The first list failed: nothing to resume from, try again (the gate stays closed).
          this.o.logger?.warn({ err, bucket: this.bucket, kind: this.kind }, 'informer could not list; trying again');
          await this.pause(run, this.retryDelayMs);
          continue;
        }
        this.o.readiness?.set(this.gate, false, `JetStream watch interrupted: ${cause}`);
        if (failed) await this.pause(run, this.retryDelayMs);
        await this.reconnected(run);
        if (run.stopped) break;
        const gone =
          err instanceof Interruption && err.relist
            ? err.reason
            : await this.revisionGone().catch(() => 'NATS JetStream cannot read the bucket');
        relist = gone !== undefined;
        // Rebuilt by listing from JetStream: while NATS does not answer, that is what readiness waits on.
        why = `cache being rebuilt from NATS JetStream: ${gone}`;
        this.metrics?.restarted(this.bucket, this.kind, relist ? 'relist' : 'resume');
        const fields = { bucket: this.bucket, kind: this.kind, cause, resumeFromRevision: this.lastRevision + 1 };
        if (relist) this.o.logger?.warn({ ...fields, gone }, 'informer watch interrupted; relisting');
        else this.o.logger?.warn(fields, 'informer watch interrupted; resuming from the last revision seen');
      }
    }
  }

  /**
   * Lists the kind and makes the cache equal to it: changed and new values are delivered as upserts, cached keys the
   * bucket no longer has as deletes. The first list delivers everything.
   */
  private async relist(run: NonNullable<Informer<T>['run']>, rebuilding: boolean): Promise<void> {
    const info = await this.o.bus.jsm.streams.info(this.streamName);
    const bucketName = this.streamName.slice('KV_'.length);
    // Each value is projected as it is read: a large kind is never held whole while it is listed.
    const snap = await listJson<T | typeof UNDECODABLE>(
      this.o.bus.js,
      bucketName,
      kindFilter(this.kind),
      (data, revision, key) => {
        try {
          return this.cached(decodeJson(data, kvSource(bucketName, key)), revision);
        } catch (err) {
          if (!isUndecodable(err)) throw err;
          this.setAside(key, revision, err);
          return UNDECODABLE;
        }
      },
    );
    if (run.stopped) return;
    this.streamCreated = info.created;
    const listed = new Set<string>();
    for (const item of snap.items) {
      listed.add(item.key);
      if (item.value === UNDECODABLE) continue;
      const known = this.cache.get(item.key);
      if (rebuilding && known?.revision === item.revision) continue;
      await this.apply(
        {
          type: 'upsert',
          key: item.key,
          ref: refFromKey(item.key),
          value: item.value as T,
          revision: item.revision,
        },
        true,
        true,
      );
    }
    for (const key of [...this.cache.keys()])
      if (!listed.has(key))
        await this.apply({ type: 'delete', key, ref: refFromKey(key), revision: snap.lastRevision }, true);
    this.lastRevision = snap.lastRevision;
  }

  /** Follows the bucket from the revision after the last one seen until interrupted (or the run stops). */
  private async follow(run: NonNullable<Informer<T>['run']>): Promise<void> {
    const iter = await this.kv.watch({
      key: kindFilter(this.kind),
      include: KvWatchInclude.UpdatesOnly,
      resumeFromRevision: this.lastRevision + 1,
    });
    // A QueuedIterator under its AsyncIterable type: stop() ends it.
    const status = this.o.bus.nc.status() as AsyncIterable<{ type: string }> & { stop(): void };
    const audit = setInterval(() => {
      void this.lostValues().then(
        (lost) => lost && interrupt(new Interruption(lost, true)),
        () => undefined, // the next audit, or the connection's status, tells
      );
    }, this.auditIntervalMs);
    let interruption: Interruption | undefined;
    const interrupt = (i: Interruption) => {
      interruption ??= i;
      iter.stop();
    };
    run.interrupt = interrupt;
    void (async () => {
      for await (const s of status) if (s.type === 'disconnect') interrupt(new Interruption(DISCONNECTED, false));
    })();
    this.watch = iter;
    this.appliedFromWatch = 0;
    // Callers that came between two watches and wait for nothing the new one must bring again.
    this.runAfterApplied();
    try {
      for await (const e of iter) {
        if (run.stopped || interruption) break;
        // The cache keeps the key: its own copy, not a slice of the message's subject.
        const key = ownedString(e.key);
        const ref = refFromKey(key);
        if (e.operation === 'PUT') {
          let value: T;
          try {
            value = decodeJson<T>(e.value, kvSource(e.bucket, key));
          } catch (err) {
            // Thrown, it would end the watch, and the watch resumed would read it again, for ever.
            if (!isUndecodable(err)) throw err;
            this.setAside(key, e.revision, err);
            if (e.revision > this.lastRevision) this.lastRevision = e.revision;
            this.wake();
            this.appliedFromWatch++;
            this.runAfterApplied();
            continue;
          }
          await this.apply({ type: 'upsert', key, ref, value, revision: e.revision });
        } else await this.apply({ type: 'delete', key, ref, revision: e.revision });
        this.appliedFromWatch++;
        this.runAfterApplied();
      }
    } finally {
      // The next watch resumes right after the last change applied, so what this one received and did not apply comes
      // again first: each caller waits for that many of the next watch's changes (a relist lets them all go).
      for (const w of this.afterApplied) w.target = Math.max(0, w.target - this.appliedFromWatch);
      this.watch = undefined;
      this.appliedFromWatch = 0;
      clearInterval(audit);
      status.stop();
      iter.stop();
      run.interrupt = undefined;
    }
    if (interruption && !run.stopped) throw interruption;
  }

  /**
   * Waits for the connection to come back, or the run to stop: a flush answers once the server does (while nats.js
   * reconnects it fails at once, so it is tried again). Nothing is logged meanwhile: the connection's own gate and
   * log lines tell of the outage.
   */
  private async reconnected(run: NonNullable<Informer<T>['run']>): Promise<void> {
    while (!run.stopped) {
      const answered = await this.o.bus.nc.flush().then(
        () => true,
        () => false,
      );
      if (answered) return;
      await this.pause(run, Math.min(this.retryDelayMs, 250));
    }
  }

  /** Why the revision after the last one seen can no longer be read (so the watch cannot resume), if it cannot. */
  private async revisionGone(): Promise<string | undefined> {
    const info = await this.o.bus.jsm.streams.info(this.streamName);
    return this.streamChanged(info);
  }

  private streamChanged(info: { created: string; state: { first_seq: number; last_seq: number } }): string | undefined {
    if (this.streamCreated !== undefined && info.created !== this.streamCreated) return 'the bucket was re-created';
    if (info.state.last_seq < this.lastRevision) return 'the bucket was re-created';
    if (info.state.first_seq > this.lastRevision + 1)
      return `revision ${this.lastRevision + 1} is gone from the bucket (first is ${info.state.first_seq})`;
    return undefined;
  }

  /**
   * The audit: a cached value older than the bucket's first revision was removed; normally a newer message replaced
   * it (in flight to the watch), but if the bucket has no value for the key at all, it was purged under the watch.
   */
  private async lostValues(): Promise<string | undefined> {
    const info = await this.o.bus.jsm.streams.info(this.streamName);
    if (info.created !== this.streamCreated || info.state.last_seq < this.lastRevision)
      return 'the bucket was re-created';
    const suspects: string[] = [];
    for (const [key, { revision }] of this.cache) {
      if (revision < info.state.first_seq) suspects.push(key);
      if (suspects.length >= 8) break;
    }
    for (const key of suspects) if ((await this.kv.get(key)) === null) return `${key} was purged from the bucket`;
    return undefined;
  }

  private pause(run: NonNullable<Informer<T>['run']>, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      run.interrupt = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }

  private snapshotEvents(): InformerEvent<T>[] {
    return [...this.cache].map(([key, { value, revision }]) => ({
      type: 'upsert',
      key,
      ref: refFromKey(key),
      value,
      revision,
    }));
  }

  /** Logs and counts a value that cannot be decoded, once per key and revision. */
  private setAside(key: string, revision: number, err: UndecodableValueError): void {
    if (this.setAsideRevisions.get(key) === revision) return;
    this.setAsideRevisions.set(key, revision);
    this.metrics?.undecodable(this.bucket, this.kind);
    this.o.logger?.error(
      { err, bucket: this.bucket, kind: this.kind, key, revision, reason: err.reason },
      'informer set aside a value it cannot decode; the cache keeps what it held for the key',
    );
  }

  /** A stored value as the cache keeps it: an object with its resourceVersion set, then projected if asked. */
  private cached(value: unknown, revision: number): T {
    // Set in place on the value just decoded, which the informer owns: a spread copy here got a hidden class of its
    // own per object from V8 (a site that sees every kind's metadata), some 300 B per cached object.
    if (this.bucket === 'objects') {
      const o = value as StoredObject;
      if (o.metadata) o.metadata.resourceVersion = String(revision);
      else o.metadata = { resourceVersion: String(revision) } as StoredObject['metadata'];
    }
    return this.projection ? this.projection.project(value as never) : (value as T);
  }

  /**
   * `force` (a relist) replaces what is cached even by a lower revision: a re-created bucket counts from 1 again.
   * `cached`: the value is already as the cache keeps it (a relist makes it so while it reads).
   */
  private async apply(e: InformerEvent<T>, force = false, cached = false): Promise<void> {
    if (e.revision > this.lastRevision) this.lastRevision = e.revision;
    const known = this.cache.get(e.key);
    if (!force && known && known.revision >= e.revision) {
      this.wake(); // already seen (list and watch can overlap)
      return;
    }
    if (e.type === 'upsert') {
      const value = cached ? e.value : this.cached(e.value, e.revision);
      e = { ...e, value };
      this.cache.set(e.key, { value, revision: e.revision });
    } else this.cache.delete(e.key);
    this.wake();
    await this.deliver([...this.handlers], [e]);
  }

  /** The cache now holds what `lastRevision` says: the waiters for it or less go on. */
  private wake(): void {
    if (!this.following) return;
    this.waiters.reach(this.lastRevision);
  }

  private setFollowing(following: boolean): void {
    this.following = following;
    if (following) this.wake();
    else this.waiters.cancelAll();
  }

  private deliverTo(handler: InformerHandler<T>, events: InformerEvent<T>[]): Promise<void> {
    return this.deliver([handler], events);
  }

  private deliver(handlers: InformerHandler<T>[], events: InformerEvent<T>[]): Promise<void> {
    const next = this.delivering.then(async () => {
      for (const e of events) {
        for (const h of handlers) {
          try {
            await h(e);
          } catch (err) {
            this.metrics?.handlerFailed(this.bucket, this.kind);
            this.o.logger?.error(
              { err, bucket: this.bucket, kind: this.kind, key: e.key, revision: e.revision, event: e.type },
              'informer handler failed; going on with the next event',
            );
          }
        }
      }
    });
    this.delivering = next;
    return next;
  }
}

function positive(field: string, v: number): number {
  if (!Number.isFinite(v) || v <= 0) throw new RangeError(`Informer: ${field} must be a positive number, got ${v}`);
  return v;
}
