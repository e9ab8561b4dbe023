import { cloudEvent, type CloudEvent } from '@flotilla/bus';
import type { DelayedQueue, DelayedWorker, JobTiming } from '@flotilla/runtime/delayed-jobs';
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import type { ControllerLogger } from './controller-logger.js';
import { ControllerMetrics } from './controller-metrics.js';
import { ReconcilePasses } from './reconcile-passes.js';
import { SpreadSweep } from './spread-sweep.js';
import { WorkQueue, type ReconcileResult } from './work-queue.js';

/** One change a watch source reports: a key (`<Kind>.<namespace or _>.<name>`) upserted or deleted. */
export interface WatchEvent {
  type: 'upsert' | 'delete';
  key: string;
  revision: number;
}

/**
 * What a controller watches: a cache of one kind that tells its subscribers of every change. The store's Informer
 * is one (the kit takes it through this interface so that it stays below the store in the layers).
 */
export interface WatchSource<E extends WatchEvent = WatchEvent> {
  readonly kind: string;
  /** `objects`, `status`, `leases`, …; status records and leases are not counted under `flotilla_objects`. */
  readonly bucket?: string;
  readonly size: number;
  keys(): Iterable<string>;
  /** Starts delivering events to `handler`; `synced` resolves once the handler has seen every cached value. */
  subscribe(handler: (e: E) => void | Promise<void>): { synced: Promise<void>; unsubscribe(): void };
  /** True once the cache holds every write made to its bucket before the call; false when it cannot say so in time. */
  caughtUpWithBucket?(timeoutMs: number): Promise<boolean>;
}

/** How a controller follows one source. */
export interface Watch<E extends WatchEvent = WatchEvent> {
  source: WatchSource<E>;
  /** Told of every event, also while the caches are being listed before start: for state derived from the caches. */
  onEvent?(e: E): void;
  /**
   * What a change means once the controller runs: by default its own key is reconciled. Called with the
   * controller, so it can queue other keys (`enqueue`) or sweep them all (`enqueueAll`), or nothing.
   */
  onChange?(e: E, controller: ControllerQueue): void;
}

/** BullMQ, for wake-ups that must outlive the process (a delay that has to fire after a leader change). */
export interface DelayedJobs<J> {
  /** Shared: the queue uses it, the worker a duplicate of it. The owner closes it. */
  redis: Redis;
  /** The BullMQ key prefix (FLOTILLA_PREFIX). */
  prefix: string;
  /** The BullMQ queue name; the controller's name by default. */
  queueName?: string;
  /** Jobs handled at once. */
  concurrency?: number;
  handler(job: Job<J, void>, timing: JobTiming): Promise<void>;
  onLateness?: (lateMs: number, job: Job<J, void>) => void;
}

/** An object a failure event is recorded on. */
export interface FailureObject {
  kind: string;
  namespace?: string | undefined;
  name: string;
}

/**
 * A reconcile error about other objects than its key's (a cluster-wide pass whose write for one binding failed): the
 * kit records the Warning event on each of `involvedObjects` instead of on the key's object; an empty list falls
 * back to the key's.
 */
export interface InvolvesObjects {
  /** Each with the event's message about it; the error's message when it has none. */
  readonly involvedObjects: ReadonlyArray<FailureObject & { message?: string }>;
}

/** The objects `err` names as its own (InvolvesObjects), if it names any. */
export function involvedObjectsOf(err: unknown): InvolvesObjects['involvedObjects'] | undefined {
  const objects = (err as Partial<InvolvesObjects> | undefined)?.involvedObjects;
  return Array.isArray(objects) && objects.length > 0 ? objects : undefined;
}

/**
 * On every failed reconcile, a Kubernetes-style Warning event on the object (folded by the status writer): the key's
 * object, or those the error names (InvolvesObjects).
 */
export interface FailureEvents {
  publish(e: CloudEvent): Promise<unknown>;
  /** The object a key names (the store's refFromKey); undefined for a key that names none (no event then). */
  objectOf(key: string): FailureObject | undefined;
  /** CamelCase, as Karmada's reasons; an error with a CamelCase `reason` of its own gives that instead. */
  reason?: string;
  /** The event's source (`component`); the controller's name by default. */
  component?: string;
}

export interface ControllerDefinition<J = never> {
  /** Lower-case letters, digits and '-': the `controller` label of every metric, and the logs' `controller` field. */
  name: string;
  /** What the controller reads; the first source's keys are its own (reconciled at start and on resync). */
  watches: Watch[];
  /** Reconciles one key; a throw retries it with backoff (and records a Warning event), a result may requeue it. */
  reconcile(key: string, queuedAtMs: number): Promise<ReconcileResult> | Promise<void>;
  /** The keys reconciled at start and by every resync; the first watch's keys by default. */
  keys?: () => Iterable<string>;
  /** Every key is reconciled again this often (0: never). Spread over the period unless `resyncSpread` is false. */
  resyncMs?: number;
  /** true (default): a slice of the keys each second; false: all at once, in the background lane. */
  resyncSpread?: boolean;
  /** Runs before each resync (a burst one, and `resync()`), e.g. to forget what must be redone. */
  onResync?: () => void;
  /**
   * Whether a reconcile of `key` now would find nothing changed since its last one and do nothing (the controller
   * remembers what it last saw; false for a key it must look at again). A pass (the start, a resync, a sweep) does
   * not queue such a key: it counts as looked at (`flotilla_reconcile_pass_skips_total`). Background work then costs
   * nothing while nothing changes. A change a watch delivers queues its key as always.
   */
  upToDate?: (key: string) => boolean;
  /** Keys reconciled at once; one key never twice at once. */
  concurrency?: number;
  /**
   * The priority of a key, asked when it is queued: higher first, equal ones in the order they came (the scheduler's
   * bindings by their schedulePriority). Every key 0 by default.
   */
  priorityOf?: (key: string) => number;
  /** First retry delay after a failure, doubled per consecutive failure up to maxBackoffMs. */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  logger: ControllerLogger;
  /** The service's registry: reconcile, queue and object metrics under the controller's name. */
  registry?: Registry;
  failureEvents?: FailureEvents;
  delayed?: DelayedJobs<J>;
  /** After the caches are synced, before the first reconcile: state the reconciles need (and the delayed queue). */
  onStart?: () => Promise<void>;
  /** After the work stopped. */
  onStop?: () => Promise<void>;
  /** Milliseconds since the epoch; Date.now by default. */
  now?: () => number;
}

/** The kit's defaults, defined once. */
export const CONTROLLER_DEFAULTS = {
  concurrency: 1,
  resyncMs: 0,
  resyncSpread: true,
  baseBackoffMs: 100,
  maxBackoffMs: 30_000,
  delayedConcurrency: 50,
  /** How long `nextPass` waits for the caches to hold the writes made before it. */
  cacheTimeoutMs: 10_000,
} as const;

/** `nextPass` could not begin: these caches did not catch up with their buckets in time (or are relisting). */
export class CachesBehindError extends Error {
  constructor(
    readonly controller: string,
    readonly kinds: string[],
  ) {
    super(`${controller}: the caches of ${kinds.join(', ')} did not catch up with their buckets`);
    this.name = 'CachesBehindError';
  }
}

export function isCachesBehind(err: unknown): err is CachesBehindError {
  return err instanceof CachesBehindError;
}

/** A controller definition that cannot run: says which field and why. */
export class ControllerDefinitionError extends Error {
  constructor(
    readonly controller: string,
    readonly field: string,
    readonly problem: string,
  ) {
    super(`defineController(${controller}): ${field} ${problem}`);
    this.name = 'ControllerDefinitionError';
  }
}

const NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
const CAMEL_CASE = /^[A-Z][A-Za-z0-9]*$/;

/** `cluster-taints` → `ClusterTaints`. */
function pascal(name: string): string {
  return name
    .split('-')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
}

/** What a watch's onChange may do with its controller. */
export interface ControllerQueue {
  readonly started: boolean;
  /** Queues a key in the urgent lane (ignored before start). */
  enqueue(key: string): void;
  /** Queues a key in the background lane, behind changes (ignored before start). */
  enqueueBackground(key: string): void;
  /** Queues every key in the background lane (ignored before start). */
  enqueueAll(): void;
}

export interface Controller<J = never> extends ControllerQueue {
  readonly name: string;
  readonly queue: WorkQueue;
  /** The BullMQ queue to add delayed jobs to, while started with `delayed`. */
  readonly delayedQueue: DelayedQueue<J> | undefined;
  /** Subscribes to every source, waits for the caches, reconciles every key once and follows changes. */
  start(): Promise<void>;
  /** Stops reconciling and following; running reconciles finish first. */
  stop(): Promise<void>;
  /** Resolves when nothing is queued or running: for tests and benchmarks. */
  idle(): Promise<void>;
  /**
   * The barrier before asserting that nothing more happens: once the watched caches hold every write made before
   * the call, a pass over every key (a resync, a sweep) that begins after that has reconciled each key. Rejects with
   * CachesBehindError when a cache does not catch up within `cacheTimeoutMs` (default 10 s), with
   * PassesStoppedError if the controller stops first.
   */
  nextPass(opts?: { cacheTimeoutMs?: number }): Promise<void>;
  /**
   * Resolves once every watched cache holds the writes made to its bucket before the call (the changes they made are
   * then queued); rejects with CachesBehindError as nextPass does.
   */
  caughtUp(opts?: { cacheTimeoutMs?: number }): Promise<void>;
  /** `onResync`, then every key in the background lane. */
  resync(): void;
}

/**
 * One way to write a controller: the definition names what it watches and how it reconciles one key; the kit owns
 * start, stop and idle, the work queue, the resync, the BullMQ worker where delays must outlive the process,
 * metrics under the controller's name (`flotilla_reconcile_total{controller,result}`, durations, queue depth and
 * age, objects watched), and a Kubernetes-style Warning event on the object of every failed reconcile. The
 * definition is checked when it is made, with an error naming the field.
 *
 * @example
 * const informers = new Informers({ bus, logger, registry, readiness: gates }); // one per process
 * const crons = informers.objects('CronFederatedHPA');
 * const controller = defineController({
 *   name: 'cron-scheduler',
 *   watches: [{ source: crons }],
 *   reconcile: async (key) => {
 *     const cron = crons.cache.get(key)?.value;
 *     if (!cron) return; // deleted
 *     // ...decide, write, publish; return { requeueAfterMs } to run again later
 *   },
 *   resyncMs: 60_000,
 *   concurrency: 32,
 *   logger,
 *   registry,
 *   failureEvents: { publish: (e) => publishEvent(bus, e), objectOf: refFromKey },
 * });
 * await controller.start();
 * // ... on demotion or shutdown:
 * await controller.stop();
 */
export function defineController<J = never>(d: ControllerDefinition<J>): Controller<J> {
  return new KitController<J>(d);
}

class KitController<J> implements Controller<J> {
  readonly name: string;
  readonly queue: WorkQueue;
  private running = false;
  private readonly metrics: ControllerMetrics;
  private readonly sweep?: SpreadSweep;
  private readonly resyncMs: number;
  private readonly spread: boolean;
  private readonly failureReason: string;
  private subscriptions: Array<{ unsubscribe(): void }> = [];
  private resyncTimer?: NodeJS.Timeout;
  private delayedQueueValue?: DelayedQueue<J>;
  private worker?: DelayedWorker<J, void>;
  private readonly keys: () => Iterable<string>;
  private readonly passes: ReconcilePasses;

  constructor(private readonly d: ControllerDefinition<J>) {
    const name = typeof d.name === 'string' ? d.name : String(d.name);
    const fail = (field: string, problem: string) => new ControllerDefinitionError(name, field, problem);
    if (!NAME.test(name))
      throw fail('name', `must be lower-case letters, digits and '-', got ${JSON.stringify(d.name)}`);
    this.name = name;
    if (typeof d.reconcile !== 'function') throw fail('reconcile', 'must be a function');
    if (!Array.isArray(d.watches) || d.watches.length === 0) throw fail('watches', 'must name at least one source');
    d.watches.forEach((w, i) => {
      if (typeof w?.source?.subscribe !== 'function')
        throw fail(`watches[${i}].source`, 'must be a watch source (an informer)');
    });
    if (!d.logger) throw fail('logger', 'is required');
    const concurrency = d.concurrency ?? CONTROLLER_DEFAULTS.concurrency;
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw fail('concurrency', `must be an integer >= 1, got ${String(d.concurrency)}`);
    this.resyncMs = d.resyncMs ?? CONTROLLER_DEFAULTS.resyncMs;
    if (!Number.isFinite(this.resyncMs) || this.resyncMs < 0)
      throw fail('resyncMs', `must be a number of milliseconds >= 0, got ${String(d.resyncMs)}`);
    const baseBackoffMs = d.baseBackoffMs ?? CONTROLLER_DEFAULTS.baseBackoffMs;
    const maxBackoffMs = d.maxBackoffMs ?? CONTROLLER_DEFAULTS.maxBackoffMs;
    if (!(baseBackoffMs > 0)) throw fail('baseBackoffMs', `must be > 0, got ${String(d.baseBackoffMs)}`);
    if (!(maxBackoffMs >= baseBackoffMs))
      throw fail('maxBackoffMs', `must be >= baseBackoffMs (${baseBackoffMs}), got ${String(d.maxBackoffMs)}`);
    this.failureReason = d.failureEvents?.reason ?? `${pascal(name)}Failed`;
    if (d.failureEvents) {
      if (typeof d.failureEvents.publish !== 'function') throw fail('failureEvents.publish', 'must be a function');
      if (typeof d.failureEvents.objectOf !== 'function') throw fail('failureEvents.objectOf', 'must be a function');
      if (!CAMEL_CASE.test(this.failureReason))
        throw fail('failureEvents.reason', `must be CamelCase, got ${JSON.stringify(this.failureReason)}`);
    }
    if (d.delayed) {
      if (!d.delayed.redis) throw fail('delayed.redis', 'is required');
      if (!d.delayed.prefix) throw fail('delayed.prefix', 'is required');
      if (typeof d.delayed.handler !== 'function') throw fail('delayed.handler', 'must be a function');
      const c = d.delayed.concurrency ?? CONTROLLER_DEFAULTS.delayedConcurrency;
      if (!Number.isInteger(c) || c < 1)
        throw fail('delayed.concurrency', `must be an integer >= 1, got ${String(d.delayed.concurrency)}`);
    }
    if (d.upToDate !== undefined && typeof d.upToDate !== 'function') throw fail('upToDate', 'must be a function');
    this.spread = d.resyncSpread ?? CONTROLLER_DEFAULTS.resyncSpread;
    const primary = d.watches[0]!.source;
    this.keys = d.keys ?? (() => primary.keys());
    this.metrics = ControllerMetrics.of(d.registry ?? new Registry());
    this.passes = new ReconcilePasses({
      controller: name,
      onBegin: () => this.metrics.passBegan(name),
      onComplete: () => this.metrics.passCompleted(name),
    });
    this.queue = new WorkQueue(
      async (key, queuedAt): Promise<ReconcileResult> => {
        const counted = this.passes.reconcileBegins(key);
        try {
          return (await d.reconcile(key, queuedAt)) ?? undefined;
        } finally {
          counted();
        }
      },
      {
        concurrency,
        baseBackoffMs,
        maxBackoffMs,
        now: d.now,
        ...(d.priorityOf ? { priorityOf: d.priorityOf } : {}),
        observer: this.metrics.observer(name),
        onError: (key, err, attempt) => this.failed(key, err, attempt),
      },
    );
    this.metrics.track(name, this.queue);
    if (this.resyncMs > 0 && this.spread)
      this.sweep = new SpreadSweep({
        keys: this.keys,
        periodMs: this.resyncMs,
        visit: (key) => this.visit(key),
        onPassBegin: () => this.passes.begin(),
        onPassEnd: () => this.passes.endVisits(),
      });
  }

  get started(): boolean {
    return this.running;
  }

  get delayedQueue(): DelayedQueue<J> | undefined {
    return this.delayedQueueValue;
  }

  async start(): Promise<void> {
    const subs = this.d.watches.map((w) => {
      const watch = w;
      return watch.source.subscribe((e) => {
        watch.onEvent?.(e);
        if (!this.running) return; // the caches' first list: start() queues every key once
        if (watch.onChange) watch.onChange(e, this);
        else this.queue.add(e.key);
      });
    });
    this.subscriptions = subs;
    await Promise.all(subs.map((s) => s.synced));
    await this.d.onStart?.();
    const delayed = this.d.delayed;
    if (delayed) {
      // BullMQ is loaded only by a controller with delayed jobs: some 14 MB of resident memory a service without them
      // does not carry.
      const { createDelayedQueue, createWorker } = await import('@flotilla/runtime/delayed-jobs');
      const queueName = delayed.queueName ?? this.name;
      this.delayedQueueValue = createDelayedQueue<J>({
        name: queueName,
        prefix: delayed.prefix,
        connection: delayed.redis,
      });
      this.worker = createWorker<J, void>({
        name: queueName,
        prefix: delayed.prefix,
        connection: delayed.redis,
        concurrency: delayed.concurrency ?? CONTROLLER_DEFAULTS.delayedConcurrency,
        onLateness: delayed.onLateness,
        handler: (job, timing) => delayed.handler(job, timing),
      });
    }
    this.running = true;
    for (const w of this.d.watches) {
      const source = w.source;
      if (source.bucket === 'objects' || source.bucket === 'kubeEvents')
        this.metrics.countObjects(source.kind, () => source.size);
    }
    this.enqueueAll();
    if (this.sweep) this.sweep.start();
    else if (this.resyncMs > 0) this.resyncTimer = setInterval(() => this.resync(), this.resyncMs);
  }

  async stop(): Promise<void> {
    this.running = false;
    this.passes.stop();
    this.metrics.forgetObjects();
    this.sweep?.stop();
    clearInterval(this.resyncTimer);
    for (const s of this.subscriptions.splice(0)) s.unsubscribe();
    // Bounded even while Redis is down (createWorker's close), as when a Redis outage deposes this leader.
    await this.worker?.close();
    this.worker = undefined;
    await this.queue.stop();
    await this.delayedQueueValue?.close();
    this.delayedQueueValue = undefined;
    await this.d.onStop?.();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  async caughtUp(opts: { cacheTimeoutMs?: number } = {}): Promise<void> {
    const timeoutMs = opts.cacheTimeoutMs ?? CONTROLLER_DEFAULTS.cacheTimeoutMs;
    const behind: string[] = [];
    await Promise.all(
      this.d.watches.map(async ({ source }) => {
        if (source.caughtUpWithBucket && !(await source.caughtUpWithBucket(timeoutMs))) behind.push(source.kind);
      }),
    );
    if (behind.length > 0) throw new CachesBehindError(this.name, behind);
  }

  async nextPass(opts: { cacheTimeoutMs?: number } = {}): Promise<void> {
    await this.caughtUp(opts);
    await this.passes.next();
  }

  enqueue(key: string): void {
    if (this.running) this.queue.add(key);
  }

  enqueueBackground(key: string): void {
    if (this.running) this.queue.addBackground(key);
  }

  enqueueAll(): void {
    if (!this.running) return;
    this.passes.begin();
    // Every key queued before any starts: a priority orders the whole pass.
    this.queue.together(() => {
      for (const key of this.keys()) this.visit(key);
    });
    this.passes.endVisits();
  }

  /** A pass queues `key` in the background lane, unless it is up to date. */
  private visit(key: string): void {
    if (this.d.upToDate?.(key)) {
      this.metrics.passSkipped(this.name);
      return;
    }
    this.passes.visit(key);
    this.queue.addBackground(key);
  }

  resync(): void {
    this.d.onResync?.();
    this.enqueueAll();
  }

  /**
   * A failed reconcile: logged, and a Warning event on its object, or on each object the error names (never failing
   * the retry itself).
   */
  private failed(key: string, err: unknown, attempt: number): void {
    this.d.logger.warn({ err, key, attempt, controller: this.name }, 'reconcile failed; retrying');
    const events = this.d.failureEvents;
    if (!events) return;
    const refs: InvolvesObjects['involvedObjects'] =
      involvedObjectsOf(err) ?? [events.objectOf(key)].filter((r) => r !== undefined);
    const own = (err as { reason?: unknown } | undefined)?.reason;
    const reason = typeof own === 'string' && CAMEL_CASE.test(own) ? own : this.failureReason;
    const message = err instanceof Error ? err.message : String(err);
    for (const ref of refs)
      void events
        .publish(
          cloudEvent({
            source: events.component ?? this.name,
            type: 'ReconcileFailed',
            kind: ref.kind,
            namespace: ref.namespace,
            name: ref.name,
            time: new Date(this.d.now?.() ?? Date.now()),
            data: {
              controller: this.name,
              attempt,
              kubeEvent: { type: 'Warning', reason, message: ref.message ?? message },
            },
          }),
        )
        .catch((publishErr: unknown) =>
          this.d.logger.warn({ err: publishErr, key, controller: this.name }, 'could not record the failure event'),
        );
  }
}
