import { Controllers } from '@flotilla/catalogue';
// The core entry: a process that never admits builds no admission schemas.
import { FederatedHpaAnnotations, listKinds } from '@flotilla/api/core';
import type { ClusterLease, StatusOfKind } from '@flotilla/api';
import { isAlreadyExists, objectDeletedEvent, type Bus, type CloudEvent } from '@flotilla/bus';
import {
  defineController,
  type Controller,
  type ControllerLogger,
  type ControllerQueue,
  type ReconcileResult,
  type WorkQueue,
} from '@flotilla/controller';
import { Registry } from 'prom-client';
import {
  AssumedUsage,
  bindingPriority,
  buildBinding,
  claimingPolicy,
  decideBinding,
  observedAfter,
  parseResourceRequest,
  type BindingDecision,
  policyClaim,
  resultWrite,
  revisitAfterMs,
  statusBasis,
  withDetected,
  type AssignedReplicas,
  type ClusterView,
  type ObservedSchedule,
  type ParsedRequest,
  type ResourceBinding,
} from '@flotilla/scheduling';
import {
  allWithStatus,
  hasSpec,
  Informers,
  isNotFound,
  withStatus,
  type CachedKind,
  type Informer,
  type InformerEvent,
  type ObjectStore,
  objectKey,
  refFromKey,
  type ObjectRef,
  type StatusRecord,
  type StoredObject,
} from '@flotilla/store';
import { clusterHealthController } from './cluster-health/controller.js';
import { DEFAULT_CLUSTER_MONITOR_GRACE_MS } from './cluster-health/decide.js';
import { clusterTaintsController } from './cluster-taints/controller.js';
import type { SchedulerKit } from './kit.js';
import { decisionEvent, EVENT_SOURCE } from './decision-event.js';
import { federatedHpaHandOff, handOverDecision, type HandOff } from './federated-hpa-handoff.js';
import { SchedulerMetrics } from './scheduler-metrics.js';
import {
  bindingStatusProjection,
  clusterSchedulingSignature,
  PlacementSharing,
  templateProjection,
  type BindingStatusView,
  type TemplateView,
} from './projections.js';

/** Bindings scheduled at once. */
export const DEFAULT_SCHEDULER_CONCURRENCY = 64;

export interface AffinitySchedulerOptions {
  bus: Bus;
  store: ObjectStore;
  publish: (e: CloudEvent) => Promise<unknown>;
  now?: () => Date;
  logger: ControllerLogger;
  /** How long a cluster may be not Ready before it gets a NoExecute taint (Karmada's failover eviction timeout). */
  failoverGraceMs: number;
  /**
   * How long a cluster's agent may go without renewing its lease before the cluster is set Ready=Unknown (Karmada's
   * `--cluster-monitor-grace-period`; default DEFAULT_CLUSTER_MONITOR_GRACE_MS).
   */
  clusterMonitorGraceMs?: number;
  /** Every binding is reconsidered this often, as an informer resync (toleration seconds running out, say). */
  resyncMs: number;
  concurrency?: number;
  /** The service's registry: reconcile, queue, object and Karmada scheduler metrics are reported there. */
  registry?: Registry;
  /** The process's shared informers; a controller of its own gets private ones. */
  informers?: Informers;
  /**
   * Whether this replica reconciles a key (a template, binding or cluster), when several replicas work at once
   * (SCHEDULER_REPLICAS=active, see ReplicaShares); every key by default. Call sharesChanged() when its answers move.
   */
  owns?: (key: string) => boolean;
}

type BindingKind = (typeof BINDING_KINDS)[number];
/**
 * A binding as the scheduler caches it: whole, as stored, its placement shared with the bindings that have the same
 * (its status is joined in when it is read).
 */
type CachedBinding = CachedKind<BindingKind>;
const BINDING_KINDS = ['ResourceBinding', 'ClusterResourceBinding'] as const;
const TEMPLATE_PROJECTION = { name: 'scheduler-template', project: templateProjection };

const BINDING_STATUS_PROJECTION = { name: 'scheduler-binding-status', project: bindingStatusProjection };
const placements = new PlacementSharing();
const BINDING_PROJECTION = { name: 'scheduler-binding', project: (b: CachedBinding) => placements.share(b) };

/**
 * The affinity scheduler's reconcilers, fed by informers:
 * 1. detection: template + matching policy → the binding's spec (not its clusters);
 * 2. scheduling: binding + clusters → spec.clusters, announced as BindingScheduled / BindingScheduleFailed;
 * 3. cluster taints: a cluster not Ready past the grace period gets a NoExecute taint (failover), a Ready one loses it;
 * 4. cluster health: a cluster whose agent stopped renewing its lease is set Ready=Unknown (then 3. taints it).
 * The leader runs it, or every replica on its own share of the keys (`owns`); every write is a compare-and-set, so a
 * deposed leader's (or a replica's that lost a key) late write fails rather than wins.
 */
export class AffinitySchedulerController {
  private readonly now: () => Date;
  private readonly templates = new Map<string, Informer<TemplateView>>();
  private readonly policies: Informer<CachedKind<'PropagationPolicy'>>;
  private readonly clusterPolicies: Informer<CachedKind<'ClusterPropagationPolicy'>>;
  /**
   * PriorityClasses (a template kind, so among `templates`, their value kept): a policy's schedulePriority names one
   * (Karmada's PriorityBasedScheduling).
   */
  private readonly priorityClasses: Informer<TemplateView>;
  private readonly clusters: Informer<CachedKind<'Cluster'>>;
  private readonly clusterStatus: Informer<StatusRecord<StatusOfKind<'Cluster'>>>;
  private readonly clusterLeases: Informer<ClusterLease>;
  /** The cluster-health controller's memory of each cluster's last renewal; a new leader starts without it. */
  /** Leases read from the bucket before an expiry, newer than the watched cache then (see checkHealth). */
  private readonly clusterMonitorGraceMs: number;
  private readonly bindings = new Map<string, Informer<CachedBinding>>();
  private readonly bindingStatus = new Map<string, Informer<BindingStatusView>>();
  /**
   * What each binding's status reports per cluster, as the assume cache has taken it in: after the cluster statuses
   * received before it (see the binding status watch).
   */
  private readonly reported = new Map<string, Record<string, number>>();
  private readonly observed = new Map<string, ObservedSchedule>();
  /** Replicas assigned but not yet reported by their clusters, counted as used by every estimate (the assume cache). */
  private readonly assumed = new AssumedUsage();
  /**
   * Assignments decided but not yet seen back through the binding informer (their write may still be in flight):
   * from the decision on, later decisions must count them, not the older clusters the cache still holds.
   */
  private readonly inFlight = new Map<string, { clusters: AssignedReplicas[]; revision?: number }>();
  private readonly clusterSignatures = new Map<string, string>();
  /** Whether the cluster status event being handled changed what scheduling reads of it. */
  private clusterStatusRelevant = false;
  /** The clusters joined with their status, rebuilt only after a cluster changed. */
  private views?: ClusterView[];
  /**
   * Counts the changes of what a kept binding's decision reads of the clusters: a Cluster object (its taints, labels)
   * and what scheduling reads of a cluster's status (clusterSchedulingSignature). Capacity reports alone do not count:
   * they move no binding that nothing asked to schedule.
   */
  private clusterEpoch = 0;
  /**
   * Each binding last found kept (nothing asked to schedule it, nothing to write, no recheck due), under what it was
   * decided from: its revision, the cluster epoch and the status fields scheduling reads. A pass that finds the same
   * does not reconcile it again (the kit's upToDate).
   */
  private readonly keptAt = new Map<string, string>();
  private readonly detection: Controller;
  private readonly scheduling: Controller;
  private readonly clusterTaints: Controller;
  private readonly clusterHealth: Controller;
  private readonly schedulerMetrics: SchedulerMetrics;

  private readonly owns: (key: string) => boolean;

  constructor(private readonly o: AffinitySchedulerOptions) {
    this.now = o.now ?? (() => new Date());
    this.owns = o.owns ?? (() => true);
    // Every reconciler skips what another replica owns; the informers still hold everything (capacity, assumed usage).
    const owned: SchedulerKit['owned'] =
      (reconcile) =>
      (key, ...rest) =>
        this.owns(key) ? reconcile(key, ...rest) : Promise.resolve(undefined);
    this.clusterMonitorGraceMs = o.clusterMonitorGraceMs ?? DEFAULT_CLUSTER_MONITOR_GRACE_MS;
    if (!Number.isInteger(this.clusterMonitorGraceMs) || this.clusterMonitorGraceMs <= 0)
      throw new RangeError(`clusterMonitorGraceMs: expected a positive integer, got ${o.clusterMonitorGraceMs}`);
    this.schedulerMetrics = SchedulerMetrics.of(o.registry ?? new Registry());
    const informers = o.informers ?? new Informers({ bus: o.bus });
    const concurrency = o.concurrency ?? DEFAULT_SCHEDULER_CONCURRENCY;
    const kit = {
      logger: o.logger,
      registry: o.registry,
      failureEvents: { publish: o.publish, objectOf: refFromKey },
    };
    const schedulerKit: SchedulerKit = { controller: kit, now: this.now, owned };
    const templateKinds = listKinds()
      .filter((k) => !k.strict)
      .map((k) => k.kind);
    for (const kind of templateKinds) this.templates.set(kind, informers.objects(kind, TEMPLATE_PROJECTION));
    this.policies = informers.objects('PropagationPolicy');
    this.clusterPolicies = informers.objects('ClusterPropagationPolicy');
    this.priorityClasses = informers.objects('PriorityClass', TEMPLATE_PROJECTION);
    this.clusters = informers.objects('Cluster');
    this.clusterStatus = informers.status('Cluster');
    this.clusterLeases = informers.leases<ClusterLease>('Cluster');
    for (const kind of BINDING_KINDS) {
      this.bindings.set(kind, informers.objects(kind, BINDING_PROJECTION));
      this.bindingStatus.set(kind, informers.status(kind, BINDING_STATUS_PROJECTION));
    }

    // 1. detection: a template's change is its own key; a policy's change may move any template.
    const sweepTemplates = (_e: unknown, c: ControllerQueue) => c.enqueueAll();
    this.detection = defineController({
      ...kit,
      name: Controllers.detection,
      watches: [
        ...[...this.templates.values()].map((source) => ({ source })),
        { source: this.policies, onChange: sweepTemplates },
        { source: this.clusterPolicies, onChange: sweepTemplates },
        // A class's value is its bindings' priority; classes change seldom.
        { source: this.priorityClasses, onChange: sweepTemplates },
      ],
      keys: () => this.ownedOf(this.templateKeys()),
      reconcile: owned((k, queuedAt: number) => this.detect(k, queuedAt)),
      // A burst's templates are detected, and their bindings placed at creation, highest priority first: when
      // capacity runs out, the higher priority has it.
      priorityOf: (k) => this.templatePriority(k),
      concurrency,
    });

    // 2. scheduling. Any change of a Cluster object, or of a cluster's readiness, can move bindings; capacity
    // reports alone cannot. The resync is spread over its period: all at once, 10,000 bindings hold up the one just
    // applied.
    const forgetViews = () => {
      this.views = undefined;
    };
    this.scheduling = defineController({
      ...kit,
      name: Controllers.scheduling,
      watches: [
        ...[...this.bindings.values()].map((source) => ({
          source,
          onEvent: (e: { key: string }) => this.refreshAssumed(e.key),
        })),
        // What a binding's status reports lets go of its assumed pods, once the cluster status watch has handed on
        // what it had received by then: the cluster's summary that counts those pods, which the status writer stored
        // first. The two watches are each in order, not with each other: a round's hundred cluster statuses queued
        // in one while a binding's status came through the other left its pods counted nowhere, and a burst into full
        // clusters overcommitted them (bench/scheduler-e2e's PodsPending count).
        ...[...this.bindingStatus.values()].map((source) => ({
          source,
          onEvent: (e: InformerEvent<BindingStatusView>) => {
            const reported = e.type === 'upsert' ? e.value.reported : undefined;
            this.clusterStatus.afterReceived(() => {
              if (reported) this.reported.set(e.key, reported);
              else this.reported.delete(e.key);
              this.refreshAssumed(e.key);
            });
          },
          onChange: () => undefined,
        })),
        {
          source: this.clusters,
          onEvent: () => {
            forgetViews();
            this.clusterEpoch++;
          },
          onChange: (_e: unknown, c: ControllerQueue) => c.enqueueAll(),
        },
        {
          source: this.clusterStatus,
          onEvent: (e: InformerEvent<StatusRecord<StatusOfKind<'Cluster'>>>) => {
            forgetViews();
            const signature = e.type === 'upsert' ? clusterSchedulingSignature(e.value.status) : undefined;
            this.clusterStatusRelevant = signature !== this.clusterSignatures.get(e.key);
            if (this.clusterStatusRelevant) this.clusterEpoch++;
            if (signature === undefined) this.clusterSignatures.delete(e.key);
            else this.clusterSignatures.set(e.key, signature);
          },
          onChange: (_e: unknown, c: ControllerQueue) => {
            if (this.clusterStatusRelevant) c.enqueueAll();
          },
        },
      ],
      keys: () => this.ownedOf(this.bindingKeys()),
      reconcile: owned((k, queuedAt: number) => this.schedule(k, queuedAt)),
      // Bindings by their schedulePriority, retries after backoff too (Karmada's PriorityBasedScheduling).
      priorityOf: (k) => bindingPriority(this.bindings.get(refFromKey(k).kind)?.cache.get(k)?.value),
      upToDate: (k) => this.keptAt.get(k) === this.keptBasis(k),
      resyncMs: o.resyncMs,
      concurrency,
    });

    // 3. cluster taints (cluster-taints/) and 4. cluster health (cluster-health/): controllers of their own.
    this.clusterTaints = clusterTaintsController({
      kit: schedulerKit,
      store: o.store,
      clusters: this.clusters,
      clusterStatus: this.clusterStatus,
      failoverGraceMs: o.failoverGraceMs,
    });
    this.clusterHealth = clusterHealthController({
      kit: schedulerKit,
      bus: o.bus,
      publish: o.publish,
      clusters: this.clusters,
      clusterStatus: this.clusterStatus,
      clusterLeases: this.clusterLeases,
      clusterMonitorGraceMs: this.clusterMonitorGraceMs,
    });
  }

  /** A resync of the scheduling controller now, instead of at its period (for tests and benchmarks). */
  resyncScheduling(): void {
    this.scheduling.resync();
  }

  /** The scheduling controller's queue (for tests). */
  get scheduleQueue(): WorkQueue {
    return this.scheduling.queue;
  }

  private controllers(): Controller[] {
    return [this.detection, this.scheduling, this.clusterTaints, this.clusterHealth];
  }

  /** Lists everything, then reconciles it all once and follows changes. */
  async start(): Promise<void> {
    await Promise.all(this.controllers().map((c) => c.start()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.controllers().map((c) => c.stop()));
  }

  /**
   * The keys this replica owns moved (a replica joined or left). The keys it gained have waited a lease for their
   * owner to be declared gone: they go to the urgent lane, ahead of the changes of keys it already had.
   */
  sharesChanged(ownedBefore: (key: string) => boolean): void {
    const gained = (keys: Iterable<string>, c: Controller) => {
      for (const key of keys) if (this.owns(key) && !ownedBefore(key)) c.enqueue(key);
    };
    gained(this.templateKeys(), this.detection);
    gained(this.bindingKeys(), this.scheduling);
    gained(this.clusters.cache.keys(), this.clusterTaints);
    gained(this.clusters.cache.keys(), this.clusterHealth);
  }

  /** Resolves when every queue is empty: for tests and benchmarks. */
  async idle(): Promise<void> {
    while (this.controllers().some((c) => c.queue.length)) await Promise.all(this.controllers().map((c) => c.idle()));
  }

  /** Resolves once every controller's caches hold the writes made before the call (the kit's caughtUp). */
  async caughtUp(): Promise<void> {
    await Promise.all(this.controllers().map((c) => c.caughtUp()));
  }

  /** Once the caches hold every write made before the call, a scheduling pass over every binding (the kit's nextPass). */
  nextPass(): Promise<void> {
    return this.scheduling.nextPass();
  }

  private *ownedOf(keys: Iterable<string>): Generator<string> {
    for (const key of keys) if (this.owns(key)) yield key;
  }

  private *templateKeys(): Generator<string> {
    for (const inf of this.templates.values()) yield* inf.cache.keys();
  }

  private *bindingKeys(): Generator<string> {
    for (const inf of this.bindings.values()) yield* inf.cache.keys();
  }

  private clusterViews(): ClusterView[] {
    this.views ??= allWithStatus(this.clusters, this.clusterStatus).map((cluster) => ({
      ...cluster,
      assumedUsage: this.assumed.usageOf(cluster.metadata.name),
    }));
    return this.views;
  }

  /**
   * Recomputes one binding's assumed usage from its assignment (the one in flight, if any, else the cached spec) and
   * what its clusters reported (`reported`). Derived from informer state only, so a new leader starts with the right
   * totals.
   */
  private refreshAssumed(key: string): void {
    const kind = refFromKey(key).kind as (typeof BINDING_KINDS)[number];
    const cached = this.bindings.get(kind)?.cache.get(key);
    if (!cached) {
      this.assumed.delete(key);
      this.inFlight.delete(key);
      return;
    }
    const flight = this.inFlight.get(key);
    if (flight?.revision !== undefined && cached.revision >= flight.revision) this.inFlight.delete(key);
    const spec = (cached.value.spec ?? {}) as {
      clusters?: AssignedReplicas[];
      replicaRequirements?: { resourceRequest?: Record<string, string | number> };
    };
    const reported = this.reported.get(key) ?? {};
    const request = assumableRequest(spec.replicaRequirements?.resourceRequest);
    this.assumed.set(
      key,
      this.inFlight.get(key)?.clusters ?? spec.clusters ?? [],
      new Map(Object.entries(reported)),
      request,
    );
  }

  // 1. detection
  /** The binding of a template, where it is, and the policy that claims the template for it (if any). */
  private claimOf(key: string) {
    const ref = refFromKey(key);
    const template = this.templates.get(ref.kind)?.get(ref);
    const bindingRef: ObjectRef = {
      kind: ref.namespace ? 'ResourceBinding' : 'ClusterResourceBinding',
      namespace: ref.namespace,
      name: `${ref.name}-${ref.kind.toLowerCase()}`,
    };
    const existing = this.bindings.get(bindingRef.kind)?.get(bindingRef);
    if (!template) return { template, bindingRef, existing };
    const candidates = [
      ...(ref.namespace ? this.policies.values().filter((p) => p.metadata.namespace === ref.namespace) : []),
      ...this.clusterPolicies.values(),
    ].filter(hasSpec);
    // The policy that claimed the template keeps it (unless preempted); the claim is the binding's.
    const policyFor = (b: StoredObject | undefined) =>
      claimingPolicy(template, candidates, policyClaim(b?.metadata.annotations));
    return { template, bindingRef, existing, policyFor };
  }

  /** The value of a PriorityClass by name; undefined when there is none. */
  private readonly priorityClassValue = (name: string): number | undefined =>
    this.priorityClasses.get({ kind: 'PriorityClass', name })?.value;

  /** The priority a template's binding has or will have: its policy's schedulePriority, 0 without one. */
  private templatePriority(key: string): number {
    // Without a class there is no priority to find: the common case costs no policy match.
    if (this.priorityClasses.cache.size === 0) return 0;
    const { template, existing, policyFor } = this.claimOf(key);
    const className = template && policyFor?.(existing)?.spec.schedulePriority?.priorityClassName;
    return className === undefined ? 0 : (this.priorityClassValue(className) ?? 0);
  }

  private async detect(key: string, queuedAtMs: number): Promise<void> {
    const { template, bindingRef, existing, policyFor } = this.claimOf(key);
    if (!template || !policyFor) {
      if (existing) await this.deleteBinding(bindingRef, existing);
      return;
    }
    // A FederatedHPA's member HPA: the hpa-assigner makes and places its binding.
    if (template.metadata.annotations?.[FederatedHpaAnnotations.owner] !== undefined) return;
    const policy = policyFor(existing);
    if (!policy) return;
    const build = (p: typeof policy) => buildBinding(template, p, { priorityClassValue: this.priorityClassValue });
    if (!existing) {
      // Create-only: if our cache lags and the binding exists, fall through to the update, which keeps its clusters.
      const created = await this.createBinding(bindingRef, build(policy), queuedAtMs);
      if (created) return;
    }
    await this.o.store.update(bindingRef, (cur) => {
      const p = policyFor(cur);
      return p ? withDetected(cur, build(p)) : undefined;
    });
  }

  /**
   * Creates a new binding, placed where this replica schedules it: the decision the scheduling controller would take
   * for it (its first, from no status), written with the creation instead of by a second compare-and-set that every
   * watcher would receive again. Counted as assumed usage from the decision on, as applyDecision does, and announced
   * after the creation. A binding that cannot be placed now, that a FederatedHPA owns, or that another replica
   * schedules is created unplaced, for the scheduling controller. Undefined when it exists already.
   */
  private async createBinding(
    ref: ObjectRef,
    built: ResourceBinding,
    queuedAtMs: number,
  ): Promise<StoredObject | undefined> {
    const key = objectKey(ref);
    const now = this.now();
    const placement = this.owns(key) ? this.placementAtCreation(built, now) : undefined;
    // Known as announced before the creation lands: the scheduling controller may reconcile its echo before this
    // returns, and must find the decision taken, not announce it again. A created binding is at generation 1.
    const announcing = placement && observedAfter(undefined, placement.decision, 1);
    /**
     * Takes back the memory set above when the creation is not announced after all. Only that memory: a binding
     * another replica created meanwhile may have been scheduled and announced by this replica's scheduling controller
     * in the meantime, and forgetting that announcement would have its next reconcile announce the same generation
     * again as a kept assignment, under another event id.
     */
    const forgetAnnouncing = () => {
      if (announcing && this.observed.get(key) === announcing) this.observed.delete(key);
    };
    // Likewise the assumed usage: the scheduling controller may count a decision of its own under the key meanwhile.
    const flying: { clusters: AssignedReplicas[]; revision?: number } | undefined = placement && {
      clusters: placement.clusters,
    };
    if (placement && announcing && flying) {
      this.inFlight.set(key, flying);
      this.assumed.set(key, placement.clusters, new Map(), placement.request);
      this.observed.set(key, announcing);
    }
    let created: StoredObject | undefined;
    try {
      // buildBinding names the binding and sets its type meta: it is a whole object to store.
      created = await this.o.store.create((placement?.binding ?? built) as StoredObject).catch((err: unknown) => {
        if (isAlreadyExists(err)) return undefined;
        throw err;
      });
    } finally {
      const flight = this.inFlight.get(key);
      if (placement && created) {
        if (flying && flight === flying) flying.revision = Number(created.metadata.resourceVersion);
      } else if (placement) {
        // Not created (it exists, or the answer was lost): what the informer holds (or nothing) is the assignment
        // again, and nothing was announced. A reconcile of the binding meanwhile may have taken the decision for
        // announced: the scheduling controller looks again, and announces what was not.
        if (flight === flying) this.inFlight.delete(key);
        forgetAnnouncing();
        this.refreshAssumed(key);
        this.scheduling.enqueue(key);
      }
    }
    if (created && placement) {
      await this.o.publish(decisionEvent(created as ResourceBinding, placement.decision, 1, now)).catch((err) => {
        // Not announced after all: the scheduling controller announces it (its echo may have been reconciled already).
        forgetAnnouncing();
        this.scheduling.enqueue(key);
        throw err;
      });
      // From its template's change being queued to its placement stored and announced, as for a scheduled binding.
      this.schedulerMetrics.e2eSeconds.observe(
        { schedule_type: placement.trigger, result: 'scheduled' },
        (Date.now() - queuedAtMs) / 1000,
      );
    }
    return created;
  }

  /** The first decision for a binding about to be created, when it places it (see createBinding). */
  private placementAtCreation(
    built: ResourceBinding,
    now: Date,
  ):
    | {
        binding: ResourceBinding;
        decision: BindingDecision;
        trigger: string;
        clusters: AssignedReplicas[];
        request?: ParsedRequest;
      }
    | undefined {
    const binding: ResourceBinding = { ...built, metadata: { ...built.metadata, generation: 1 } };
    const views = this.clusterViews();
    if (federatedHpaHandOff(binding, views, now).kind !== 'Schedule') return undefined;
    const algorithmStart = performance.now();
    const decision = decideBinding(binding, views, now, undefined);
    if (decision.kind !== 'Scheduled' || !decision.result.ok || !decision.clusters) return undefined;
    this.schedulerMetrics.algorithmSeconds.observe((performance.now() - algorithmStart) / 1000);
    this.schedulerMetrics.attempts.inc({ schedule_type: decision.trigger, result: 'scheduled' });
    const write = resultWrite(decision);
    if (!write) return undefined;
    const request = assumableRequest(binding.spec.replicaRequirements?.resourceRequest);
    return {
      binding: write(binding),
      decision,
      trigger: decision.trigger,
      clusters: decision.clusters,
      ...(request ? { request } : {}),
    };
  }

  private async deleteBinding(ref: ObjectRef, existing: StoredObject): Promise<void> {
    await this.o.store.delete(ref).catch((err: unknown) => {
      if (!isNotFound(err)) throw err;
    });
    this.observed.delete(objectKey(ref));
    await this.o.publish(
      objectDeletedEvent({ source: EVENT_SOURCE, ...ref, uid: existing.metadata.uid, time: this.now() }),
    );
  }

  // 2. scheduling
  /**
   * What a kept decision of `key` would be taken from now (see keptAt); undefined without the binding. Of its status,
   * what a decision reads, with this scheduler's announcement bridging its fold (statusBasis): not the members'
   * reports, which move with every pod, nor the fold of the decision already taken, which decide nothing new.
   */
  private keptBasis(key: string): string | undefined {
    const kind = refFromKey(key).kind;
    const revision = this.bindings.get(kind)?.cache.get(key)?.revision;
    if (revision === undefined) return undefined;
    const status = this.bindingStatus.get(kind)?.cache.get(key)?.value.status;
    return `${revision}/${this.clusterEpoch}/${statusBasis(status, this.observed.get(key))}`;
  }

  private async schedule(key: string, queuedAtMs: number): Promise<ReconcileResult> {
    const ref = refFromKey(key);
    const basis = this.keptBasis(key);
    this.keptAt.delete(key);
    const cached = this.bindings.get(ref.kind)?.cache.get(key);
    const stored = cached?.value;
    if (!stored || !hasSpec(stored)) {
      this.observed.delete(key);
      return;
    }
    const binding: ResourceBinding = withStatus(stored, key, this.bindingStatus.get(ref.kind));
    const now = this.now();
    const handOff = federatedHpaHandOff(binding, this.clusterViews(), now);
    if (handOff.kind !== 'Schedule') return this.handOver(ref, handOff, cached, binding, now);
    const algorithmStart = performance.now();
    const decision = decideBinding(binding, this.clusterViews(), now, this.observed.get(key));
    if (decision.kind !== 'Scheduled') {
      const next = await this.applyDecision(ref, cached, binding, decision, now);
      // Kept (nothing is written) with nothing due: the same state decides the same, so a pass may skip it.
      if (decision.kind === 'Kept' && next === undefined && basis !== undefined) this.keptAt.set(key, basis);
      return next;
    }
    this.schedulerMetrics.algorithmSeconds.observe((performance.now() - algorithmStart) / 1000);
    const labels = { schedule_type: decision.trigger, result: decision.result.ok ? 'scheduled' : 'unschedulable' };
    try {
      const next = await this.applyDecision(ref, cached, binding, decision, now);
      this.schedulerMetrics.e2eSeconds.observe(labels, (Date.now() - queuedAtMs) / 1000);
      return next;
    } catch (err) {
      labels.result = 'error';
      throw err;
    } finally {
      this.schedulerMetrics.attempts.inc(labels);
    }
  }

  /** Writes the decision's result (if any), announces it, and says when to decide again. */
  private async applyDecision(
    ref: ObjectRef,
    cached: { value: CachedBinding; revision: number },
    binding: ResourceBinding,
    decision: BindingDecision,
    now: Date,
  ): Promise<ReconcileResult> {
    const key = objectKey(ref);
    let generation = binding.metadata.generation ?? 0;
    const write = resultWrite(decision);
    if (write) {
      // Counted from now on, before the write lands: the decisions taken meanwhile must not hand out the same room.
      const assigning = decision.kind === 'Scheduled' ? decision.clusters : undefined;
      if (assigning) {
        this.inFlight.set(key, { clusters: assigning });
        this.refreshAssumed(key);
      }
      let written: StoredObject | undefined;
      try {
        written = await this.o.store.update(
          ref,
          (cur) =>
            // Scheduled from an older generation: the informer brings the newer one and reschedules it.
            cur.metadata.generation !== binding.metadata.generation ? undefined : write(cur),
          { cached },
        );
      } finally {
        if (assigning) {
          const flight = this.inFlight.get(key);
          if (written && flight) flight.revision = Number(written.metadata.resourceVersion);
          else this.inFlight.delete(key);
          this.refreshAssumed(key);
        }
      }
      if (!written) return;
      generation = written.metadata.generation ?? generation;
    }
    if (decision.announce) {
      await this.o.publish(decisionEvent(binding, decision, generation, now));
      this.observed.set(key, observedAfter(this.observed.get(key), decision, generation));
    }
    const revisit = revisitAfterMs(decision);
    if (revisit !== undefined) return { requeueAfterMs: revisit };
  }

  /**
   * A FederatedHPA owns the binding: only the feasible clusters are written (see federated-hpa-handoff.ts), and a
   * binding not yet marked Scheduled is announced as kept with the clusters it has.
   */
  private async handOver(
    ref: ObjectRef,
    handOff: Exclude<HandOff, { kind: 'Schedule' }>,
    cached: { value: CachedBinding; revision: number },
    binding: ResourceBinding,
    now: Date,
  ): Promise<ReconcileResult> {
    if (handOff.kind === 'LeaveAlone') return;
    if (handOff.changed) {
      await this.o.store.update(
        ref,
        (cur) =>
          cur.metadata.annotations?.[FederatedHpaAnnotations.owner] === undefined
            ? undefined
            : {
                ...cur,
                metadata: {
                  ...cur.metadata,
                  annotations: {
                    ...cur.metadata.annotations,
                    [FederatedHpaAnnotations.feasibleClusters]: handOff.feasible,
                  },
                },
              },
        { cached },
      );
    }
    // Unless this replica announced a success for it already (the status then says Scheduled=True soon).
    const announced = this.observed.get(objectKey(ref));
    if (handOff.kind === 'FilterOnly' && handOff.announce && (!announced || announced.failureMessage !== undefined))
      await this.applyDecision(ref, cached, binding, handOverDecision(binding), now);
    if (handOff.recheckAfterMs !== undefined) return { requeueAfterMs: handOff.recheckAfterMs + 50 };
  }
}

/**
 * A binding's per-replica request as the assume cache counts it: none when malformed (that fails the binding's own
 * scheduling; its pods still count against the pod budget).
 */
function assumableRequest(resourceRequest: Record<string, string | number> | undefined): ParsedRequest | undefined {
  try {
    return parseResourceRequest(resourceRequest);
  } catch {
    return undefined;
  }
}
