import { Controllers } from '@flotilla/catalogue';
import type { EffectiveHorizontalPodAutoscaler } from '@flotilla/api';
import { defineController, type Controller, type ReconcileResult, type WorkQueue } from '@flotilla/controller';
import {
  decideEffectiveHpa,
  historyRetentionMs,
  historyUnavailable,
  observedTarget,
  predictionEnabled,
  type EhpaDecision,
  type EhpaForecastErrorStatus,
  type Forecast,
} from '@flotilla/ehpa';
import type { AutoscalerHistory, MemberReport } from '@flotilla/hpa-math';
import type { MetricHistorySource } from '@flotilla/metric-history';
import type { EffectiveHpaScaledData } from '@flotilla/replica-trail';
import type { ForecastError } from '@flotilla/prediction';
import { systemClock, type Clock } from '@flotilla/runtime';
import { encodeJobId, jobDueAt, scheduleAt } from '@flotilla/runtime/delayed-jobs';
import {
  bindingKeyOfUsageKey,
  Informers,
  ObjectStore,
  refFromKey,
  type Informer,
  type InformerEvent,
  type ObjectRef,
  type CachedKind,
} from '@flotilla/store';
import { EFFECTIVE_HPA_KIND, EffectiveHpaEventTypes } from './ehpa-events.js';
import { EhpaForecasts } from './ehpa-forecasts.js';
import { EhpaMetrics } from './ehpa-metrics.js';
import { StatusPublisher } from './status-publisher.js';
import type { HpaControllerDependencies } from './pass.js';
import { bindingNameOf } from './member-objects.js';
import { MemberCaches, TargetIndex } from './member-caches.js';

export const EHPA_CONTROLLER_NAME = Controllers.effectiveHpa;

/** The EffectiveHPA controller's defaults (and the service's config defaults). */
export const EFFECTIVE_HPA_DEFAULTS = {
  /** The sync period of the HPA Crane manages. */
  syncPeriodMs: 15_000,
  concurrency: 32,
} as const;

export interface EffectiveHpaControllerOptions extends HpaControllerDependencies {
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
  /** The process's shared informers (the binding caches keep the FederatedHPA controller's projection). */
  informers?: Informers;
}

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
  private readonly ehpas: Informer<CachedKind<typeof EFFECTIVE_HPA_KIND>>;
  private readonly caches: MemberCaches;
  private readonly forecasts: EhpaForecasts;
  private readonly controller: Controller<BoundaryJob>;
  /** Target binding key → the EffectiveHPAs that scale it. */
  private readonly targets = new TargetIndex();
  /** The managed HPA's in-memory state per EffectiveHPA, as Kubernetes' HPA controller keeps it. */
  private readonly states = new Map<string, { history?: AutoscalerHistory; lastSyncMs?: number }>();
  /** Status patches out, each only when it differs from the last one published. */
  private readonly status: StatusPublisher;
  /** The cron boundary (ms) each EffectiveHPA has a job for. */
  private readonly armed = new Map<string, number>();
  /** Keys woken by a cron boundary: evaluated even within the sync period. */
  private readonly woken = new Set<string>();
  private retentionMs = 0;
  private readonly metrics: EhpaMetrics | undefined;
  /** The gauge's labels this controller set, by key: removed when the EffectiveHPA goes or the controller stops. */
  private readonly errorLabels = new Map<string, { namespace: string; name: string }>();

  constructor(private readonly o: EffectiveHpaControllerOptions) {
    this.clock = o.clock ?? systemClock;
    this.store = o.store ?? new ObjectStore(o.bus);
    this.status = new StatusPublisher({
      kind: EFFECTIVE_HPA_KIND,
      idPrefix: 'ehpa',
      source: EHPA_CONTROLLER_NAME,
      volatileFields: ['lastScaleTime'],
      publish: o.publish,
      clock: this.clock,
    });
    this.forecasts = new EhpaForecasts(o.history);
    this.metrics = o.registry ? EhpaMetrics.of(o.registry) : undefined;
    const informers = o.informers ?? new Informers({ bus: o.bus });
    this.ehpas = informers.objects(EFFECTIVE_HPA_KIND);
    // The FederatedHPA controller's caches: what a pass reads of the member clusters' reports is the same.
    this.caches = new MemberCaches(informers);
    const onBinding = (e: { key: string }, c: { enqueueBackground(key: string): void }) => {
      for (const k of this.targets.readersOf(e.key)) c.enqueueBackground(k);
    };
    const nothing = () => undefined;
    this.controller = defineController<BoundaryJob>({
      name: EHPA_CONTROLLER_NAME,
      watches: [
        {
          source: this.ehpas,
          onEvent: (e: InformerEvent<CachedKind<typeof EFFECTIVE_HPA_KIND>>) =>
            this.index(e.key, e.type === 'upsert' ? e.value : undefined),
        },
        { source: this.caches.bindings, onChange: onBinding },
        { source: this.caches.bindingStatus, onChange: onBinding },
        // A usage key is its binding's key and a cluster: a move wakes the binding's readers.
        { source: this.caches.usage, onChange: (e, c) => onBinding({ key: bindingKeyOfUsageKey(e.key) }, c) },
        // Read at each pass; a cluster's change alone reconciles nothing.
        { source: this.caches.clusters, onChange: nothing },
        { source: this.caches.clusterStatus, onChange: nothing },
      ],
      reconcile: (k) => this.reconcile(k),
      // Every EffectiveHPA each sync period, all at once behind the changes.
      resyncMs: o.syncPeriodMs ?? EFFECTIVE_HPA_DEFAULTS.syncPeriodMs,
      resyncSpread: false,
      concurrency: o.concurrency ?? EFFECTIVE_HPA_DEFAULTS.concurrency,
      logger: o.logger,
      registry: o.registry,
      failureEvents: { publish: o.publish, objectOf: refFromKey },
      delayed: {
        redis: o.redis,
        prefix: o.queuePrefix,
        queueName: o.queueName ?? EHPA_CONTROLLER_NAME,
        handler: async (job) => {
          // Redis and this process may disagree on the time by a little: a window is judged at its boundary, not before.
          const early = jobDueAt(job) - this.clock.now().getTime();
          if (early > 0) await new Promise((r) => setTimeout(r, early));
          if (!this.controller.started) return;
          this.woken.add(job.data.key);
          this.controller.enqueue(job.data.key);
        },
      },
    });
  }

  /** The controller's work queue (for tests and benchmarks). */
  get workQueue(): WorkQueue {
    return this.controller.queue;
  }

  async start(): Promise<void> {
    await this.controller.start();
  }

  async stop(): Promise<void> {
    await this.controller.stop();
    // Another leader reports the errors now: this replica's series would only go stale.
    for (const key of [...this.errorLabels.keys()]) this.showError(key, undefined);
  }

  /** Evaluates every EffectiveHPA now, as if each sync period had run out (a benchmark's round). */
  refreshAll(): void {
    for (const k of this.ehpas.cache.keys()) {
      this.woken.add(k);
      this.controller.enqueue(k);
    }
  }

  /** Resolves when no reconcile is queued or running: for tests and benchmarks. */
  async idle(): Promise<void> {
    await this.controller.idle();
  }

  /** Once the caches hold every write made before the call, a sync pass over every EffectiveHorizontalPodAutoscaler (the kit's nextPass). */
  nextPass(): Promise<void> {
    return this.controller.nextPass();
  }

  private index(key: string, ehpa: EffectiveHorizontalPodAutoscaler | undefined): void {
    const ref = ehpa?.spec?.scaleTargetRef;
    this.targets.set(key, ehpa?.metadata.namespace, ref ? [bindingNameOf(ref.name, ref.kind)] : []);
  }

  /** The member clusters' reports of the target, on the clusters its binding places it on. */
  private members(namespace: string | undefined, bindingName: string): MemberReport[] {
    return this.caches.membersOf(namespace, bindingName).members;
  }

  /** The metrics stream keeps the longest history any EffectiveHPA reads (historyLength + Crane's extra hour). */
  private async keepHistory(): Promise<void> {
    if (!this.o.ensureHistoryRetention) return;
    const needed = historyRetentionMs(
      [...this.ehpas.cache.values()].flatMap(({ value }) => {
        const spec = value.spec;
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

  /** The error of the past forecasts; a history that cannot be read leaves it unknown (the forecast said why). */
  private async forecastError(
    key: string,
    ehpa: EffectiveHorizontalPodAutoscaler,
    now: Date,
  ): Promise<ForecastError | undefined> {
    try {
      return await this.forecasts.errorFor(key, ehpa, now);
    } catch (err) {
      this.o.logger.warn({ err, key }, 'could not read the usage history for the forecast error');
      return undefined;
    }
  }

  private showError(key: string, error: ForecastError | undefined): void {
    if (!this.metrics) return;
    const labels = this.errorLabels.get(key) ?? refLabels(key);
    if (error) {
      this.metrics.forecastError.set(labels, error.mape);
      this.errorLabels.set(key, labels);
    } else if (this.errorLabels.delete(key)) this.metrics.forecastError.remove(labels);
  }

  private async reconcile(key: string): Promise<ReconcileResult> {
    const ehpa = this.ehpas.cache.get(key)?.value;
    if (!ehpa?.spec) {
      this.states.delete(key);
      this.status.forget(key);
      this.armed.delete(key);
      this.forecasts.forget(key);
      this.showError(key, undefined);
      return;
    }
    const period = this.o.syncPeriodMs ?? EFFECTIVE_HPA_DEFAULTS.syncPeriodMs;
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
      await this.status.observe(ehpa, EffectiveHpaEventTypes.EffectiveHPAObserved, {
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
    const forecastError = forecast ? await this.forecastError(key, ehpa, now) : undefined;
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
    // 5. Status, with the forecast error (a gauge too) where prediction is on.
    this.showError(key, forecastError);
    const scaled = decision.events[0];
    await this.status.observe(
      ehpa,
      scaled ? EffectiveHpaEventTypes.EffectiveHPAScaled : EffectiveHpaEventTypes.EffectiveHPAObserved,
      forecast ? { ...decision.statusPatch, forecastError: forecastErrorStatus(forecastError) } : decision.statusPatch,
      scaled ? { reason: scaled.reason, message: `${scaled.message} (source: ${scaled.source})` } : undefined,
      scaled
        ? ({
            source: scaled.source,
            fromReplicas: scaled.fromReplicas,
            toReplicas: scaled.toReplicas,
          } satisfies Omit<EffectiveHpaScaledData, 'statusPatch' | 'kubeEvent'>)
        : {},
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
    const queue = this.controller.delayedQueue;
    if (!next || !queue) return;
    const atMs = Date.parse(next);
    if (this.armed.get(key) === atMs) return;
    // One id per EffectiveHPA and boundary: arming it again (another pass, a new leader) adds nothing.
    const jobId = encodeJobId('boundary', ehpa.metadata.uid ?? key, String(atMs));
    await scheduleAt(queue, jobId, new Date(atMs), { key }, now);
    this.armed.set(key, atMs);
  }
}

/** The gauge's labels of an EffectiveHPA's key. */
function refLabels(key: string): { namespace: string; name: string } {
  const ref = refFromKey(key);
  return { namespace: ref.namespace ?? '', name: ref.name };
}

/**
 * The status' forecastError: the MAPE rounded to 0.1 % (finer moves every sample and says nothing more), over which
 * window and how many samples; null while nothing can be compared (no forecast for the window yet, no history).
 */
function forecastErrorStatus(e: ForecastError | undefined): EhpaForecastErrorStatus | null {
  if (!e) return null;
  return { mape: Math.round(e.mape * 1000) / 1000, windowSeconds: e.windowSeconds, samples: e.samples };
}
