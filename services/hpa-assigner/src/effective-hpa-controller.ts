import { Controllers } from '@flotilla/catalogue';
import { createHash } from 'node:crypto';
import type { EffectiveHorizontalPodAutoscaler } from '@flotilla/api';
import { cloudEvent, type Bus, type CloudEvent } from '@flotilla/bus';
import { WorkQueue, type ReconcileResult } from '@flotilla/controller';
import {
  decideEffectiveHpa,
  historyRetentionMs,
  historyUnavailable,
  observedTarget,
  predictionEnabled,
  type EhpaDecision,
  type Forecast,
} from '@flotilla/ehpa';
import {
  memberReports,
  type AggregatedWorkloadEntry,
  type AutoscalerHistory,
  type MemberReport,
} from '@flotilla/hpa-math';
import type { MetricHistorySource } from '@flotilla/metric-history';
import {
  createDelayedQueue,
  createWorker,
  encodeJobId,
  jobDueAt,
  scheduleAt,
  systemClock,
  type Clock,
  type DelayedQueue,
  type DelayedWorker,
} from '@flotilla/runtime';
import { isReady, type Cluster } from '@flotilla/scheduling';
import {
  Informer,
  ObjectStore,
  objectKey,
  type ObjectRef,
  type StatusRecord,
  type StoredObject,
} from '@flotilla/store';
import type { Redis } from 'ioredis';
import { EFFECTIVE_HPA_KIND, EffectiveHpaEventTypes } from './ehpa-events.js';
import { EhpaForecasts } from './ehpa-forecasts.js';
import type { ControllerLogger } from './federated-hpa-controller.js';
import { bindingNameOf } from './member-objects.js';

export const EHPA_CONTROLLER_NAME = Controllers.effectiveHpa;

export interface EffectiveHpaControllerOptions {
  bus: Bus;
  store?: ObjectStore;
  /** Shared by the cron boundary queue; the worker runs on a duplicate. The owner closes it. */
  redis: Redis;
  queuePrefix: string;
  queueName?: string;
  publish: (e: CloudEvent) => Promise<unknown>;
  clock?: Clock;
  logger: ControllerLogger;
  /** Where the usage history for prediction comes from: the metrics stream or Prometheus. */
  history: MetricHistorySource;
  /** Keeps the metrics stream's max age at the longest historyLength in use (the embedded source only). */
  ensureHistoryRetention?: (maxAgeMs: number) => Promise<void>;
  /** Every EffectiveHPA is evaluated this often (the managed HPA's sync period). Default 15 s. */
  syncPeriodMs?: number;
  /** The zone of crons with `timezone: Local`. Default UTC. */
  controllerZone?: string;
  downscaleStabilizationWindowSeconds?: number;
  concurrency?: number;
}

type Obj = StoredObject & Record<string, unknown>;
interface BoundaryJob {
  key: string;
}

/**
 * Crane's EffectiveHPA controller for a workload that spans member clusters. Every sync period, and at once when a
 * cron window starts or ends, it reads the template and the member clusters' reports, refits the forecast when due,
 * and lets `decideEffectiveHpa` combine the observed, predicted and cron proposals. Auto writes the template's
 * spec.replicas (the scheduler divides it); Preview only reports. Each cron boundary is a BullMQ delayed job keyed by
 * its time, so a restart or a new leader neither misses nor repeats it, and a repeated run computes the same
 * replicas (the decision is level-triggered). Status goes out as domain events for the status-writer to fold.
 */
export class EffectiveHpaController {
  private readonly clock: Clock;
  private readonly store: ObjectStore;
  private readonly ehpas: Informer<Obj>;
  private readonly bindings: Informer<Obj>;
  private readonly bindingStatus: Informer<StatusRecord<{ aggregatedStatus?: AggregatedWorkloadEntry[] }>>;
  private readonly clusters: Informer<Obj>;
  private readonly clusterStatus: Informer<StatusRecord>;
  private readonly forecasts: EhpaForecasts;
  readonly workQueue: WorkQueue;
  /** Target binding key → the EffectiveHPAs that scale it. */
  private readonly byTarget = new Map<string, Set<string>>();
  /** The managed HPA's in-memory state per EffectiveHPA, as Kubernetes' HPA controller keeps it. */
  private readonly states = new Map<string, { history?: AutoscalerHistory; lastSyncMs?: number }>();
  private readonly published = new Map<string, string>();
  /** The cron boundary (ms) each EffectiveHPA has a job for. */
  private readonly armed = new Map<string, number>();
  /** Keys woken by a cron boundary: evaluated even within the sync period. */
  private readonly woken = new Set<string>();
  private retentionMs = 0;
  private queue?: DelayedQueue<BoundaryJob>;
  private worker?: DelayedWorker<BoundaryJob, void>;
  private syncTimer?: NodeJS.Timeout;
  private started = false;

  constructor(private readonly o: EffectiveHpaControllerOptions) {
    this.clock = o.clock ?? systemClock;
    this.store = o.store ?? new ObjectStore(o.bus);
    this.forecasts = new EhpaForecasts(o.history);
    const enqueue = (key: string) => this.started && this.workQueue.add(key);
    this.ehpas = new Informer<Obj>({
      bus: o.bus,
      bucket: 'objects',
      kind: EFFECTIVE_HPA_KIND,
      onEvent: (e) => {
        this.index(e.key, e.type === 'upsert' ? (e.value as unknown as EffectiveHorizontalPodAutoscaler) : undefined);
        enqueue(e.key);
      },
    });
    const onBinding = (e: { key: string }) => {
      if (this.started) for (const k of this.byTarget.get(e.key) ?? []) this.workQueue.addBackground(k);
    };
    this.bindings = new Informer<Obj>({ bus: o.bus, bucket: 'objects', kind: 'ResourceBinding', onEvent: onBinding });
    this.bindingStatus = new Informer({ bus: o.bus, bucket: 'status', kind: 'ResourceBinding', onEvent: onBinding });
    this.clusters = new Informer<Obj>({ bus: o.bus, bucket: 'objects', kind: 'Cluster' });
    this.clusterStatus = new Informer<StatusRecord>({ bus: o.bus, bucket: 'status', kind: 'Cluster' });
    this.workQueue = new WorkQueue((k) => this.reconcile(k), {
      concurrency: o.concurrency ?? 32,
      onError: (key, err, attempt) => o.logger.warn({ err, key, attempt }, 'EffectiveHPA reconcile failed; retrying'),
    });
  }

  private informers(): Array<Informer<unknown>> {
    return [this.clusters, this.clusterStatus, this.bindings, this.bindingStatus, this.ehpas] as Array<
      Informer<unknown>
    >;
  }

  async start(): Promise<void> {
    await Promise.all(this.informers().map((i) => i.start()));
    const name = this.o.queueName ?? EHPA_CONTROLLER_NAME;
    this.queue = createDelayedQueue<BoundaryJob>({ name, prefix: this.o.queuePrefix, connection: this.o.redis });
    this.worker = createWorker<BoundaryJob, void>({
      name,
      prefix: this.o.queuePrefix,
      connection: this.o.redis,
      concurrency: 50,
      handler: async (job) => {
        // Redis and this process may disagree on the time by a little: a window is judged at its boundary, not before.
        const early = jobDueAt(job) - this.clock.now().getTime();
        if (early > 0) await new Promise((r) => setTimeout(r, early));
        if (!this.started) return;
        this.woken.add(job.data.key);
        this.workQueue.add(job.data.key);
      },
    });
    this.started = true;
    for (const k of this.ehpas.cache.keys()) this.workQueue.add(k);
    this.syncTimer = setInterval(() => {
      for (const k of this.ehpas.cache.keys()) this.workQueue.addBackground(k);
    }, this.o.syncPeriodMs ?? 15_000);
  }

  async stop(): Promise<void> {
    this.started = false;
    clearInterval(this.syncTimer);
    for (const i of this.informers()) i.stop();
    await this.worker?.close();
    await this.workQueue.stop();
    await this.queue?.close();
  }

  /** Evaluates every EffectiveHPA now, as if each sync period had run out (a benchmark's round). */
  refreshAll(): void {
    for (const k of this.ehpas.cache.keys()) {
      this.woken.add(k);
      this.workQueue.add(k);
    }
  }

  /** Resolves when no reconcile is queued or running: for tests and benchmarks. */
  async idle(): Promise<void> {
    await this.workQueue.idle();
  }

  private index(key: string, ehpa: EffectiveHorizontalPodAutoscaler | undefined): void {
    for (const set of this.byTarget.values()) set.delete(key);
    if (!ehpa?.spec) return;
    const ref = ehpa.spec.scaleTargetRef;
    const k = objectKey({
      kind: 'ResourceBinding',
      namespace: ehpa.metadata.namespace,
      name: bindingNameOf(ref.name, ref.kind),
    });
    const set = this.byTarget.get(k) ?? new Set<string>();
    set.add(key);
    this.byTarget.set(k, set);
  }

  /** The member clusters' reports of the target, on the clusters its binding places it on. */
  private members(namespace: string | undefined, bindingName: string): MemberReport[] {
    const ref = { kind: 'ResourceBinding', namespace, name: bindingName };
    const bound = (
      (this.bindings.get(ref)?.spec as { clusters?: Array<{ name: string }> } | undefined)?.clusters ?? []
    ).map((c) => c.name);
    const ready = new Map(
      [...this.clusters.cache.entries()].map(([key, { value }]) => {
        const cluster = { ...value, status: this.clusterStatus.cache.get(key)?.value.status } as unknown as Cluster;
        return [cluster.metadata.name ?? '', isReady(cluster)] as const;
      }),
    );
    return memberReports(this.bindingStatus.get(ref)?.status?.aggregatedStatus ?? [], bound, ready);
  }

  /** The metrics stream keeps the longest history any EffectiveHPA reads (historyLength + Crane's extra hour). */
  private async keepHistory(): Promise<void> {
    if (!this.o.ensureHistoryRetention) return;
    const needed = historyRetentionMs(
      [...this.ehpas.cache.values()].flatMap(({ value }) => {
        const spec = (value as unknown as EffectiveHorizontalPodAutoscaler).spec;
        return spec ? [spec] : [];
      }),
    );
    if (needed > this.retentionMs) {
      await this.o.ensureHistoryRetention(needed);
      this.retentionMs = needed;
    }
  }

  private async forecast(
    key: string,
    ehpa: EffectiveHorizontalPodAutoscaler,
    now: Date,
  ): Promise<Forecast | undefined> {
    const spec = ehpa.spec!;
    if (!predictionEnabled(spec)) return undefined;
    try {
      return await this.forecasts.windowFor(key, ehpa, now);
    } catch (err) {
      // The history source failing is what Crane's TimeSeriesPrediction reports as not ready; the other sources go on.
      this.o.logger.warn({ err, key }, 'could not read the usage history for prediction');
      return historyUnavailable(spec, (err as Error).message);
    }
  }

  private async reconcile(key: string): Promise<ReconcileResult> {
    const ehpa = this.ehpas.cache.get(key)?.value as unknown as EffectiveHorizontalPodAutoscaler | undefined;
    if (!ehpa?.spec) {
      this.states.delete(key);
      this.published.delete(key);
      this.armed.delete(key);
      this.forecasts.forget(key);
      return;
    }
    const period = this.o.syncPeriodMs ?? 15_000;
    const now = this.clock.now();
    const nowMs = now.getTime();
    const state = this.states.get(key) ?? {};
    const woken = this.woken.delete(key);
    if (!woken && state.lastSyncMs !== undefined && nowMs - state.lastSyncMs < period) {
      return { requeueAfterMs: period - (nowMs - state.lastSyncMs) };
    }
    // 1. The target.
    const spec = ehpa.spec;
    const ns = ehpa.metadata.namespace;
    const ref: ObjectRef = { kind: spec.scaleTargetRef.kind, namespace: ns, name: spec.scaleTargetRef.name };
    const template = await this.store.get(ref);
    if (!template) {
      await this.observe(ehpa, EffectiveHpaEventTypes.EffectiveHPAObserved, {
        conditions: [
          { type: 'Ready', status: 'False', reason: 'FailedGetScale', message: `${ref.kind} ${ref.name} not found` },
        ],
      });
      return { requeueAfterMs: period };
    }
    // 2. The three sources and the decision.
    await this.keepHistory();
    const specReplicas = (template.spec as { replicas?: number } | undefined)?.replicas ?? 1;
    const target = observedTarget(specReplicas, this.members(ns, bindingNameOf(ref.name, ref.kind)));
    const forecast = await this.forecast(key, ehpa, now);
    const decision = decideEffectiveHpa({
      ehpa,
      ...target,
      ...(forecast ? { forecast } : {}),
      now,
      ...(state.history ? { history: state.history } : {}),
      ...(this.o.controllerZone ? { controllerZone: this.o.controllerZone } : {}),
      ...(this.o.downscaleStabilizationWindowSeconds !== undefined
        ? { downscaleStabilizationWindowSeconds: this.o.downscaleStabilizationWindowSeconds }
        : {}),
    });
    // 3. The write (Auto, or Preview's specificReplicas), then the history that goes with it.
    if (decision.scaleTo !== undefined) {
      const to = decision.scaleTo;
      await this.store.update(ref, (cur) => {
        if ((cur.spec as { replicas?: number } | undefined)?.replicas === to) return undefined;
        return { ...cur, spec: { ...(cur.spec as object), replicas: to } };
      });
    }
    this.states.set(key, { history: decision.history, lastSyncMs: nowMs });
    // 4. The next cron boundary, as a durable timer.
    await this.armBoundary(key, ehpa, decision, now);
    // 5. Status.
    const scaled = decision.events[0];
    await this.observe(
      ehpa,
      scaled ? EffectiveHpaEventTypes.EffectiveHPAScaled : EffectiveHpaEventTypes.EffectiveHPAObserved,
      decision.statusPatch as unknown as Record<string, unknown>,
      scaled ? { reason: scaled.reason, message: `${scaled.message} (source: ${scaled.source})` } : undefined,
      scaled ? { source: scaled.source, fromReplicas: scaled.fromReplicas, toReplicas: scaled.toReplicas } : {},
    );
    return { requeueAfterMs: period };
  }

  private async armBoundary(
    key: string,
    ehpa: EffectiveHorizontalPodAutoscaler,
    d: EhpaDecision,
    now: Date,
  ): Promise<void> {
    const next = d.statusPatch.nextCronBoundary;
    if (!next || !this.queue) return;
    const atMs = Date.parse(next);
    if (this.armed.get(key) === atMs) return;
    // One id per EffectiveHPA and boundary: arming it again (another pass, a new leader) adds nothing.
    const jobId = encodeJobId('boundary', ehpa.metadata.uid ?? key, String(atMs));
    await scheduleAt(this.queue, jobId, new Date(atMs), { key }, now);
    this.armed.set(key, atMs);
  }

  /** Publishes a status patch when it differs from the last one this leader published (and always for a write). */
  private async observe(
    ehpa: EffectiveHorizontalPodAutoscaler,
    type: string,
    statusPatch: Record<string, unknown>,
    kubeEvent?: { reason: string; message: string },
    extra: Record<string, unknown> = {},
  ): Promise<void> {
    const key = objectKey({ kind: EFFECTIVE_HPA_KIND, namespace: ehpa.metadata.namespace, name: ehpa.metadata.name! });
    const { lastScaleTime: _t, ...comparable } = statusPatch;
    const json = JSON.stringify(comparable);
    if (!kubeEvent && this.published.get(key) === json) return;
    const digest = createHash('sha256').update(JSON.stringify({ statusPatch, extra })).digest('hex').slice(0, 16);
    await this.o.publish(
      cloudEvent({
        id: `ehpa.${ehpa.metadata.uid}.${type}.${ehpa.metadata.generation ?? 0}.${digest}`,
        source: EHPA_CONTROLLER_NAME,
        type,
        kind: EFFECTIVE_HPA_KIND,
        namespace: ehpa.metadata.namespace,
        name: ehpa.metadata.name!,
        time: this.clock.now(),
        data: { ...extra, statusPatch, ...(kubeEvent ? { kubeEvent: { type: 'Normal', ...kubeEvent } } : {}) },
      }),
    );
    this.published.set(key, json);
  }
}
