import { objectDeletedEvent, type Bus, type CloudEvent, type PublishResult } from '@flotilla/bus';
import { defineController, type Controller, type WorkQueue } from '@flotilla/controller';
import {
  bindingKey,
  bindingRefOf,
  bindingsToRead,
  chunkEvents,
  needsTrigger,
  planRebalance,
  reconcileRebalancer,
  selectedKinds,
  selectWorkloads,
  type BindingLookup,
  type BindingRef,
  type BindingView,
  type BindingWrite,
  type BindingWriteOutcome,
  type FailBackBudget,
  type ObservedWorkload,
  type RebalanceDecision,
  type WorkloadRebalancer,
  type WorkloadRebalancerStatus,
  type WorkloadReference,
} from '@flotilla/rebalance';
import { listKinds } from '@flotilla/api';
import { systemClock, type Clock } from '@flotilla/runtime';
import { encodeJobId, scheduleAt } from '@flotilla/runtime/delayed-jobs';
import {
  Informers,
  isNotFound,
  refFromKey,
  hasSpec,
  type CachedKind,
  type Informer,
  ObjectStore,
  objectKey,
  StaleResourceVersionError,
  type ObjectRef,
  type StatusRecord,
  type StoredObject,
} from '@flotilla/store';
import type { Redis } from 'ioredis';
import pMap from 'p-map';
import type { Registry } from 'prom-client';
import { CONTROLLER_NAME, REBALANCER_KIND, rebalancerEvent, workloadTriggeredEvent } from './cloud-events.js';
import { RebalanceRetryError } from './errors.js';
import { FailBack } from './fail-back.js';

export interface ControllerLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface RebalancerControllerOptions {
  bus: Bus;
  store?: ObjectStore;
  /** The TTL timers' connection (the worker runs on a duplicate). The owner closes it. */
  redis: Redis;
  /** BullMQ key prefix (FLOTILLA_PREFIX). */
  queuePrefix: string;
  /** BullMQ queue name; default `rebalancer`. */
  queueName?: string;
  publish: (e: CloudEvent) => Promise<PublishResult>;
  clock?: Clock;
  logger: ControllerLogger;
  /** Rebalancers reconciled at once. Default 4. */
  concurrency?: number;
  /** Binding compare-and-sets in flight per rebalancer. Default 128. */
  writeConcurrency?: number;
  /** Workloads per event at most, so that one event stays far below the bus's 1 MiB limit once gzipped. Default 10,000. */
  eventChunk?: number;
  /** Every rebalancer and fail-back candidate is reconsidered this often. Default 60 s. */
  resyncMs?: number;
  /** The fleet's fail-backs at most per period; default FAIL_BACK_BUDGET_DEFAULTS. */
  failBackBudget?: FailBackBudget;
  /** Called after each pass that published something: for benchmarks and tests. */
  onPass?: (r: { key: string; decision: RebalanceDecision; ms: number }) => void;
  /** The service's registry: reconcile, queue and object metrics under `rebalancer` and `fail-back`. */
  registry?: Registry;
  /** The process's shared informers; a controller of its own gets private ones. */
  informers?: Informers;
}

type CachedBinding = CachedKind<(typeof BINDING_KINDS)[number]>;
type TtlJob = { key: string };
const BINDING_KINDS = ['ResourceBinding', 'ClusterResourceBinding'] as const;

/** What this leader last published about a rebalancer, folded: newer than the status bucket until the writer catches up. */
interface Projection {
  uid: string;
  seq: number;
  status: WorkloadRebalancerStatus | undefined;
}

/**
 * The WorkloadRebalancer controller (Karmada's pkg/controllers/workloadrebalancer), a thin shell around
 * reconcileRebalancer. Per rebalancer (a work-queue key, never two passes of one at once):
 *
 * 1. read it from the informer, its status from the status bucket or, when newer, from what this leader published;
 * 2. read the bindings of the workloads without a result (a binding the informer has not seen yet is read directly
 *    before it is called missing);
 * 3. plan the triggers (pure), write each as one compare-and-set on the binding, and decide (pure) from what each
 *    write did: stored, found done already, the binding gone (Failed), or failed (pending, retried with backoff);
 * 4. publish an event on each workload triggered, then the decision's events (the status writer folds them into
 *    status): a pass that fails part-way publishes them all again;
 * 5. once finished: delete at the resourceVersion read when the TTL has run out (a concurrent edit cancels it),
 *    else arm a BullMQ delayed job for when it runs out, which survives restarts and leader changes.
 *
 * Plus opt-in fail-back (fail-back.ts). Only the leader runs it; every write is a compare-and-set.
 */
export class RebalancerController {
  private readonly clock: Clock;
  private readonly store: ObjectStore;
  private readonly rebalancers: Informer<CachedKind<typeof REBALANCER_KIND>>;
  private readonly rebalancerStatus: Informer<StatusRecord<WorkloadRebalancerStatus>>;
  private readonly bindings = new Map<string, Informer<CachedBinding>>();
  private readonly projections = new Map<string, Projection>();
  /** Finished rebalancers past their TTL whose status the status writer has not stored yet. */
  private readonly deleteWhenFolded = new Set<string>();
  /** Binding key -> rebalancers with a Failed or pending workload of that binding (re-checked when it changes). */
  private readonly waiting = new Map<string, Set<string>>();
  private readonly waitingOf = new Map<string, string[]>();
  readonly failBack: FailBack;
  private readonly controller: Controller<TtlJob>;

  constructor(private readonly o: RebalancerControllerOptions) {
    this.clock = o.clock ?? systemClock;
    this.store = o.store ?? new ObjectStore(o.bus);
    const informers = o.informers ?? new Informers({ bus: o.bus });
    this.rebalancers = informers.objects(REBALANCER_KIND);
    this.rebalancerStatus = informers.status(REBALANCER_KIND);
    for (const kind of BINDING_KINDS) this.bindings.set(kind, informers.objects(kind));
    const resyncMs = o.resyncMs ?? 60_000;
    const kit = {
      logger: o.logger,
      registry: o.registry,
      failureEvents: { publish: o.publish, objectOf: refFromKey },
    };
    this.failBack = new FailBack({
      store: this.store,
      publish: o.publish,
      clock: this.clock,
      informers,
      bindings: this.bindings,
      resyncMs,
      budget: o.failBackBudget,
      ...kit,
    });
    this.controller = defineController<TtlJob>({
      ...kit,
      name: CONTROLLER_NAME,
      watches: [
        // Spec changes only: status-only writes go to the status bucket and do not come through here (as Karmada's
        // update predicate).
        { source: this.rebalancers },
        // A status change matters only to a finished rebalancer whose deletion waits for its status to be stored.
        {
          source: this.rebalancerStatus,
          onChange: (e: { key: string }, c: { enqueue(key: string): void }) => {
            if (this.deleteWhenFolded.has(e.key)) c.enqueue(e.key);
          },
        },
        ...[...this.bindings.values()].map((source) => ({
          source,
          onChange: (e: { key: string }, c: { enqueue(key: string): void }) => {
            for (const rb of this.waiting.get(e.key) ?? []) c.enqueue(rb);
          },
        })),
      ],
      reconcile: (k) => this.reconcile(k),
      concurrency: o.concurrency ?? 4,
      resyncMs,
      resyncSpread: false,
      delayed: {
        redis: o.redis,
        prefix: o.queuePrefix,
        queueName: o.queueName ?? CONTROLLER_NAME,
        concurrency: 16,
        // The job only wakes the rebalancer: whether the TTL ran out is decided again from what is stored.
        handler: async (job) => this.controller.enqueue(job.data.key),
      },
    });
  }

  /** The rebalancer's work queue (for tests and benchmarks). */
  get workQueue(): WorkQueue {
    return this.controller.queue;
  }

  /** Lists everything, arms the TTL worker, and reconciles every rebalancer once. */
  async start(): Promise<void> {
    await Promise.all([this.controller.start(), this.failBack.start()]);
  }

  async stop(): Promise<void> {
    await Promise.all([this.failBack.stop(), this.controller.stop()]);
  }

  /** Resolves when nothing is queued or running: for tests and benchmarks. */
  async idle(): Promise<void> {
    while (this.workQueue.length || this.failBack.queue.length)
      await Promise.all([this.workQueue.idle(), this.failBack.queue.idle()]);
  }

  /** Once the caches hold every write made before the call, a pass over every rebalancer (the kit's nextPass). */
  nextPass(): Promise<void> {
    return this.controller.nextPass();
  }

  /** Resolves once the caches hold every write made before the call (the kit's caughtUp). */
  caughtUp(): Promise<void> {
    return this.controller.caughtUp();
  }

  /** The status to decide from: the status writer's, unless this leader has published something it has not folded yet. */
  private statusOf(key: string, uid: string): WorkloadRebalancerStatus | undefined {
    return (this.unfolded(key, uid) ?? this.rebalancerStatus.cache.get(key)?.value)?.status;
  }

  /** What this leader published for the rebalancer and the status writer has not stored yet, if anything. */
  private unfolded(key: string, uid: string): Projection | undefined {
    const mine = this.projections.get(key);
    if (mine?.uid !== uid) return undefined;
    const stored = this.rebalancerStatus.cache.get(key)?.value;
    return !stored || stored.seq < mine.seq ? mine : undefined;
  }

  private bindingCached(ref: BindingRef): { value: CachedBinding; revision: number } | undefined {
    return this.bindings.get(ref.kind)?.cache.get(objectKey(ref));
  }

  private async reconcile(key: string): Promise<void> {
    const cached = this.rebalancers.cache.get(key);
    if (!cached) {
      this.forget(key);
      return;
    }
    const started = performance.now();
    const stored = cached.value;
    const uid = stored.metadata.uid ?? key;
    const generation = stored.metadata.generation ?? 1;
    const rebalancer: WorkloadRebalancer = { ...stored, status: this.statusOf(key, uid) };
    const now = this.clock.now();
    const selected = rebalancer.status?.observedGeneration !== generation ? await this.select(rebalancer) : undefined;

    // 2. read the bindings: from the informer, or directly when it has not seen them yet
    const lookups = new Map<string, BindingLookup>();
    await pMap(
      bindingsToRead({ rebalancer, selected }),
      async (ref) => {
        const cachedBinding = this.bindingCached(ref)?.value;
        lookups.set(
          bindingKey(ref),
          cachedBinding && hasSpec(cachedBinding) ? { found: cachedBinding } : await this.read(ref),
        );
      },
      { concurrency: 32 },
    );
    const plan = {
      rebalancer,
      selected,
      lookup: (_w: WorkloadReference, ref: BindingRef): BindingLookup =>
        lookups.get(bindingKey(ref)) ?? { error: 'the binding was not read' },
    };
    // 3. write the triggers; decide from what the writes did
    const writes = await this.writeAll(planRebalance(plan));
    const decision = reconcileRebalancer({ ...plan, writes, now });
    const wrote = [...writes.values()].filter((w) => 'written' in w).length;
    const decidedMs = performance.now() - started;

    // 4. the events
    if (decision.events.length) {
      const who = { name: stored.metadata.name, uid, generation };
      // Each workload's event before the rebalancer's: once its status says Successful, no pass triggers the
      // workload again, so an event of a workload that failed to publish (a busy NATS) would be lost for good. A pass
      // that fails here is retried and publishes them again (each event's id is the same: stored once).
      const triggered = decision.events.flatMap((e) => (e.type === 'RebalanceTriggered' ? e.data.workloads : []));
      await pMap(triggered, (t) => this.o.publish(workloadTriggeredEvent(who, t, now)), { concurrency: 128 });
      const pieces = chunkEvents(decision.events, this.o.eventChunk ?? 10_000).map((e) => rebalancerEvent(who, e, now));
      const acks = await Promise.all(pieces.map((e) => this.o.publish(e)));
      this.projections.set(key, { uid, seq: Math.max(...acks.map((a) => a.seq)), status: decision.status });
      const ms = performance.now() - started;
      this.o.onPass?.({ key, decision, ms });
      this.o.logger.info(
        {
          key,
          workloads: decision.status?.observedWorkloads?.length ?? 0,
          writes: wrote,
          decideAndWriteMs: Math.round(decidedMs),
          ms: Math.round(ms),
        },
        'rebalance pass',
      );
    }
    this.watchBindings(key, decision.status);
    if (decision.retry.length) throw new RebalanceRetryError(stored.metadata.name, decision.retry);

    // 5. the TTL: counted, as in Karmada, from the finishTime in the status; the object is deleted only once the
    // status writer has stored that status, so that a reader of the status (kubectl get -w) sees it finished first
    // (a busy status writer could lag past a short TTL). The stored status's next change queues it again.
    this.deleteWhenFolded.delete(key);
    if (decision.delete && this.unfolded(key, uid)) this.deleteWhenFolded.add(key);
    else if (decision.delete) await this.deleteFinished(key, stored, uid, now);
    else if (decision.requeueAfterMs !== null)
      await this.armTtl(key, uid, new Date(now.getTime() + decision.requeueAfterMs), now);
  }

  /** The workloads spec.workloadSelectors select among the stored templates of the kinds they can name. */
  private async select(rebalancer: WorkloadRebalancer): Promise<WorkloadReference[] | undefined> {
    const selectors = rebalancer.spec?.workloadSelectors;
    if (!selectors?.length) return undefined;
    const kinds =
      selectedKinds(selectors) ??
      listKinds()
        .filter((k) => !k.strict)
        .map((k) => k.kind);
    const templates = (await Promise.all(kinds.map((k) => this.store.list(k)))).flat();
    return selectWorkloads(selectors, templates);
  }

  private async read(ref: BindingRef): Promise<BindingLookup> {
    try {
      const b = await this.store.get(ref);
      // The store hands out any kind: what it holds under a binding's key is a binding.
      return b ? { found: b as BindingView } : { notFound: true };
    } catch (err) {
      return { error: (err as Error).message };
    }
  }

  /**
   * Each write one compare-and-set (from the informer's copy; a stale copy is read again and the trigger decided
   * again on what is stored). What became of each, by bindingKey.
   */
  private async writeAll(writes: readonly BindingWrite[]): Promise<Map<string, BindingWriteOutcome>> {
    const outcomes = new Map<string, BindingWriteOutcome>();
    await pMap(
      writes,
      async (w) => {
        const ref: ObjectRef = { kind: w.binding.kind, namespace: w.binding.namespace, name: w.binding.name };
        let seen: StoredObject | undefined;
        let outcome: BindingWriteOutcome;
        try {
          const cached = this.bindingCached(w.binding);
          const written = await this.store.update(
            ref,
            (cur) => {
              seen = cur;
              const spec = cur.spec as BindingView['spec'];
              return needsTrigger(spec.rescheduleTriggeredAt, w.rescheduleTriggeredAt)
                ? { ...cur, spec: { ...spec, rescheduleTriggeredAt: w.rescheduleTriggeredAt } }
                : undefined;
            },
            cached ? { cached } : {},
          );
          outcome = written ? { written: written as BindingView } : { unchanged: seen as BindingView };
        } catch (err) {
          outcome = isNotFound(err) ? { notFound: true } : { error: (err as Error).message };
        }
        outcomes.set(bindingKey(w.binding), outcome);
      },
      { concurrency: this.o.writeConcurrency ?? 128 },
    );
    return outcomes;
  }

  /** Re-checks a Failed or pending workload when its binding appears or changes (Karmada never retries a Failed one). */
  private watchBindings(key: string, status: WorkloadRebalancerStatus | undefined): void {
    for (const b of this.waitingOf.get(key) ?? []) this.waiting.get(b)?.delete(key);
    const keys = ((status?.observedWorkloads ?? []) as ObservedWorkload[])
      .filter((o) => o.result !== 'Successful')
      .map((o) => objectKey(bindingRefOf(o.workload)));
    for (const b of keys) {
      let set = this.waiting.get(b);
      if (!set) {
        set = new Set();
        this.waiting.set(b, set);
      }
      set.add(key);
    }
    if (keys.length) this.waitingOf.set(key, keys);
    else this.waitingOf.delete(key);
  }

  private forget(key: string): void {
    this.projections.delete(key);
    this.deleteWhenFolded.delete(key);
    this.watchBindings(key, undefined);
  }

  /** Deletes at the resourceVersion read: an edit since (Karmada's corner case 3) makes this a no-op, and requeues. */
  private async deleteFinished(key: string, rb: WorkloadRebalancer, uid: string, now: Date): Promise<void> {
    const ref = { kind: REBALANCER_KIND, name: rb.metadata.name };
    try {
      await this.store.delete(ref, rb.metadata.resourceVersion);
    } catch (err) {
      if (err instanceof StaleResourceVersionError) {
        this.o.logger.info({ key }, 'rebalancer edited since it was read; its TTL is decided again');
        return;
      }
      if (isNotFound(err)) return;
      throw err;
    }
    this.forget(key);
    this.o.logger.info(
      { key, ttlSecondsAfterFinished: rb.spec?.ttlSecondsAfterFinished },
      'finished rebalancer deleted after its TTL',
    );
    await this.o.publish(
      objectDeletedEvent({ source: CONTROLLER_NAME, kind: REBALANCER_KIND, name: rb.metadata.name, uid, time: now }),
    );
  }

  private async armTtl(key: string, uid: string, at: Date, now: Date): Promise<void> {
    const queue = this.controller.delayedQueue;
    if (!queue) return;
    await scheduleAt(queue, encodeJobId('ttl', uid, at.toISOString()), at, { key }, now);
  }
}
