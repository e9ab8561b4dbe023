import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { FederatedHpaAnnotations, parseMemberLimits, type FederatedHPA, formatTime } from '@flotilla/api';
import { decideFederatedHpa, type MemberStatus, type RecordedAssignment } from '@flotilla/assignment';
import { AlreadyExistsError, cloudEvent, type Bus, type CloudEvent } from '@flotilla/bus';
import { WorkQueue, type ReconcileResult, MAX_TIMER_MS } from '@flotilla/controller';
import { emptyHistory, type AutoscalerHistory } from '@flotilla/hpa-math';
import {
  createDelayedQueue,
  createWorker,
  encodeJobId,
  jobDueAt,
  removeJob,
  scheduleAt,
  systemClock,
  type Clock,
  type DelayedQueue,
  type DelayedWorker,
} from '@flotilla/runtime';
import { isReady, type Cluster, type ResourceList } from '@flotilla/scheduling';
import {
  Informer,
  NotFoundError,
  ObjectStore,
  objectKey,
  refFromKey,
  type ObjectRef,
  type StatusRecord,
  type StoredObject,
} from '@flotilla/store';
import type { Redis } from 'ioredis';
import { decideCentralized, type MemberReport } from './centralized.js';
import { assignmentRows, assignmentStatusPatch, FederatedHpaEventTypes, type MemberHpaStatus } from './fhpa-status.js';
import { bindingNameOf, memberHpaAnnotations, memberHpaBinding, memberHpaTemplate } from './member-objects.js';

export const CONTROLLER_NAME = 'hpa-assigner';
export const FEDERATED_HPA_KIND = 'FederatedHPA';
const HPA_KIND = 'HorizontalPodAutoscaler';

export interface ControllerLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** One write of a move across clusters, for benchmarks: when the delay ran out and when the new max was stored. */
export interface MoveReport {
  key: string;
  from: string;
  to: string;
  /** When the pending-pods delay of the starved cluster ran out (ms since the epoch). */
  dueAtMs?: number;
  appliedAtMs: number;
}

export interface FederatedHpaControllerOptions {
  bus: Bus;
  store?: ObjectStore;
  /** Shared by the pending-pods delay queue; the worker runs on a duplicate. The owner closes it. */
  redis: Redis;
  queuePrefix: string;
  queueName?: string;
  publish: (e: CloudEvent) => Promise<unknown>;
  clock?: Clock;
  logger: ControllerLogger;
  /** Every FederatedHPA is evaluated this often (Karmada's --horizontal-pod-autoscaler-sync-period). Default 15 s. */
  syncPeriodMs?: number;
  /** How often the max of an assignment is re-split (Karmada's FederatedHPA proposal). Default 5 minutes. */
  optimisePeriodMs?: number;
  /** The delay before a cluster with pending pods gives up max, when the FederatedHPA sets none. Default 30 s. */
  defaultMultiClusterDelaySeconds?: number;
  downscaleStabilizationWindowSeconds?: number;
  concurrency?: number;
  onMove?: (r: MoveReport) => void;
}

type Obj = StoredObject & Record<string, unknown>;
interface PendingJob {
  key: string;
  cluster: string;
}
interface AggregatedEntry {
  clusterName: string;
  status?: {
    replicas?: number;
    readyReplicas?: number;
    pendingReplicas?: number;
    cpuUsageMilli?: number;
    cpuRequestMilli?: number;
    hpa?: { currentReplicas?: number; desiredReplicas?: number; currentCPUUtilizationPercentage?: number };
  };
}
interface BindingSpecView {
  resource?: { kind?: string; name?: string; namespace?: string };
  clusters?: Array<{ name: string; replicas?: number }>;
  replicaRequirements?: { resourceRequest?: ResourceList };
}

/**
 * The FederatedHPA controller, in the mode the object chooses:
 * - without `spec.federatedHPAAssignment`, Karmada's shipped FederatedHPA: one replica count for the resource template
 *   from the member clusters' pods (`decideCentralized`), written to the template's spec.replicas;
 * - with it, Karmada's FederatedHPA proposal: member HPAs (an HPA template and its binding, per-cluster min/max as an
 *   override) whose limits `decideFederatedHpa` assigns and moves, and the target binding's clusters. The target's
 *   binding is marked as owned, so the affinity scheduler only filters its clusters and no longer divides them.
 * Per object a work-queue key; every write a compare-and-set; only the leader runs it. A member cluster's pending
 * pods arm a BullMQ delayed job (`autoscaleMultiClusterDelay`), so the delay survives a leader change.
 */
export class FederatedHpaController {
  private readonly clock: Clock;
  private readonly store: ObjectStore;
  private readonly fhpas: Informer<Obj>;
  private readonly bindings: Informer<Obj>;
  private readonly bindingStatus: Informer<StatusRecord<{ aggregatedStatus?: AggregatedEntry[] }>>;
  private readonly clusters: Informer<Obj>;
  private readonly clusterStatus: Informer<StatusRecord>;
  readonly workQueue: WorkQueue;
  /** Target binding key → the FederatedHPA keys that scale it. */
  private readonly byTarget = new Map<string, Set<string>>();
  /** The Kubernetes HPA's in-memory state per FederatedHPA, for the shipped mode (as the HPA controller keeps it). */
  private readonly histories = new Map<string, { history: AutoscalerHistory; lastSyncMs?: number }>();
  /** A digest of the last status patch published per FederatedHPA, so an unchanged pass publishes nothing. */
  private readonly published = new Map<string, string>();
  /** Pending-pods jobs this leader armed (job id → due time). */
  private readonly armed = new Map<string, number>();
  /** FederatedHPAs whose stale delay jobs were looked for once in this term. */
  private readonly swept = new Set<string>();
  private queue?: DelayedQueue<PendingJob>;
  private worker?: DelayedWorker<PendingJob, void>;
  private syncTimer?: NodeJS.Timeout;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private started = false;

  constructor(private readonly o: FederatedHpaControllerOptions) {
    this.clock = o.clock ?? systemClock;
    this.store = o.store ?? new ObjectStore(o.bus);
    const enqueue = (key: string) => this.started && this.workQueue.add(key);
    this.fhpas = new Informer<Obj>({
      bus: o.bus,
      bucket: 'objects',
      kind: FEDERATED_HPA_KIND,
      onEvent: (e) => {
        this.index(e.key, e.type === 'upsert' ? (e.value as unknown as FederatedHPA) : undefined);
        enqueue(e.key);
      },
    });
    const onBinding = (e: { key: string }) => {
      for (const k of this.byTarget.get(e.key) ?? []) enqueue(k);
    };
    // The caches keep only what a pass reads: with 10,000 FederatedHPAs they hold 20,000 bindings.
    this.bindings = new Informer<Obj>({
      bus: o.bus,
      bucket: 'objects',
      kind: 'ResourceBinding',
      onEvent: onBinding,
      projection: { name: 'bindingProjection', project: bindingProjection },
    });
    this.bindingStatus = new Informer<StatusRecord<{ aggregatedStatus?: AggregatedEntry[] }>>({
      bus: o.bus,
      bucket: 'status',
      kind: 'ResourceBinding',
      onEvent: onBinding,
      projection: { name: 'bindingStatusProjection', project: bindingStatusProjection },
    });
    const onCluster = () => {
      if (this.started) for (const k of this.fhpas.cache.keys()) this.workQueue.addBackground(k);
    };
    this.clusters = new Informer<Obj>({ bus: o.bus, bucket: 'objects', kind: 'Cluster', onEvent: onCluster });
    this.clusterStatus = new Informer<StatusRecord>({
      bus: o.bus,
      bucket: 'status',
      kind: 'Cluster',
      onEvent: onCluster,
    });
    this.workQueue = new WorkQueue((k) => this.reconcile(k), {
      concurrency: o.concurrency ?? 32,
      onError: (key, err, attempt) => o.logger.warn({ err, key, attempt }, 'reconcile failed; retrying'),
    });
  }

  private informers(): Array<Informer<unknown>> {
    return [this.clusters, this.clusterStatus, this.bindings, this.bindingStatus, this.fhpas] as Array<
      Informer<unknown>
    >;
  }

  async start(): Promise<void> {
    await Promise.all(this.informers().map((i) => i.start()));
    const name = this.o.queueName ?? CONTROLLER_NAME;
    this.queue = createDelayedQueue<PendingJob>({ name, prefix: this.o.queuePrefix, connection: this.o.redis });
    this.worker = createWorker<PendingJob, void>({
      name,
      prefix: this.o.queuePrefix,
      connection: this.o.redis,
      concurrency: 50,
      // The delay ran out: the pass finds the job active or completed and treats the cluster as starved, as long as
      // its pods still pend. A leader that dies before acting leaves the job completed for the next one to find.
      handler: async (job) => {
        if (this.started) this.workQueue.add(job.data.key);
      },
    });
    this.started = true;
    for (const k of this.fhpas.cache.keys()) this.workQueue.add(k);
    this.syncTimer = setInterval(() => {
      for (const k of this.fhpas.cache.keys()) this.workQueue.addBackground(k);
    }, this.o.syncPeriodMs ?? 15_000);
  }

  async stop(): Promise<void> {
    this.started = false;
    clearInterval(this.syncTimer);
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    for (const i of this.informers()) i.stop();
    await this.worker?.close();
    await this.workQueue.stop();
    await this.queue?.close();
  }

  /** Resolves when no reconcile is queued or running: for tests and benchmarks. */
  async idle(): Promise<void> {
    await this.workQueue.idle();
  }

  private index(key: string, fhpa: FederatedHPA | undefined): void {
    for (const set of this.byTarget.values()) set.delete(key);
    if (!fhpa?.spec) return;
    const ref = fhpa.spec.scaleTargetRef;
    const ns = fhpa.metadata.namespace;
    const keys = [
      objectKey({ kind: 'ResourceBinding', namespace: ns, name: bindingNameOf(ref.name, ref.kind) }),
      objectKey({ kind: 'ResourceBinding', namespace: ns, name: bindingNameOf(fhpa.metadata.name!, HPA_KIND) }),
    ];
    for (const k of keys) {
      const set = this.byTarget.get(k) ?? new Set<string>();
      set.add(key);
      this.byTarget.set(k, set);
    }
  }

  private clusterList(): Cluster[] {
    return [...this.clusters.cache.entries()].map(
      ([key, { value }]) =>
        ({ ...value, status: this.clusterStatus.cache.get(key)?.value.status }) as unknown as Cluster,
    );
  }

  private async reconcile(key: string): Promise<ReconcileResult> {
    const fhpa = this.fhpas.cache.get(key)?.value as unknown as FederatedHPA | undefined;
    if (!fhpa?.spec) {
      this.histories.delete(key);
      this.published.delete(key);
      this.swept.delete(key);
      // Deleted: its member HPAs go, and the scheduler divides the target's replicas again.
      const ref = refFromKey(key);
      await this.releaseMemberHpas(ref.namespace, ref.name);
      return;
    }
    if (fhpa.spec.federatedHPAAssignment) return this.assign(key, fhpa);
    await this.releaseMemberHpas(fhpa.metadata.namespace, fhpa.metadata.name!);
    return this.scaleTemplate(key, fhpa);
  }

  // Karmada's shipped FederatedHPA

  private async scaleTemplate(key: string, fhpa: FederatedHPA): Promise<ReconcileResult> {
    const period = this.o.syncPeriodMs ?? 15_000;
    const nowMs = this.clock.now().getTime();
    const state = this.histories.get(key) ?? { history: emptyHistory() };
    if (state.lastSyncMs !== undefined && nowMs - state.lastSyncMs < period) {
      return { requeueAfterMs: period - (nowMs - state.lastSyncMs) };
    }
    const spec = fhpa.spec!;
    const ns = fhpa.metadata.namespace;
    const ref: ObjectRef = { kind: spec.scaleTargetRef.kind, namespace: ns, name: spec.scaleTargetRef.name };
    const template = await this.store.get(ref);
    if (!template) {
      await this.observe(fhpa, FederatedHpaEventTypes.FederatedHPAObserved, {
        conditions: [
          {
            type: 'AbleToScale',
            status: 'False',
            reason: 'FailedGetScale',
            message: `${ref.kind} ${ref.name} not found`,
          },
        ],
      });
      return;
    }
    const templateReplicas = ((template.spec as { replicas?: number } | undefined)?.replicas ?? 1) as number;
    const { members } = this.membersOf(ns, bindingNameOf(ref.name, ref.kind));
    const d = decideCentralized({
      spec,
      templateReplicas,
      members,
      history: state.history,
      nowMs,
      ...(this.o.downscaleStabilizationWindowSeconds !== undefined
        ? { downscaleStabilizationWindowSeconds: this.o.downscaleStabilizationWindowSeconds }
        : {}),
    });
    if (d.rescale) {
      await this.store.update(ref, (cur) => ({
        ...cur,
        spec: { ...(cur.spec as object), replicas: d.desiredReplicas },
      }));
    }
    this.histories.set(key, { history: d.history, lastSyncMs: nowMs });
    const patch = {
      observedGeneration: fhpa.metadata.generation ?? 0,
      currentReplicas: templateReplicas,
      desiredReplicas: d.desiredReplicas,
      ...(d.utilization !== undefined
        ? {
            currentMetrics: [
              { type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: d.utilization } } },
            ],
          }
        : {}),
      conditions: d.conditions,
      ...(d.rescale
        ? {
            lastScaleTime: formatTime(this.clock.now()),
          }
        : {}),
    };
    const type = d.rescale ? FederatedHpaEventTypes.FederatedHPARescaled : FederatedHpaEventTypes.FederatedHPAObserved;
    const message = d.rescale
      ? `New size: ${d.desiredReplicas}; reason: ${spec.metrics?.length ? 'cpu resource utilization (percentage of request)' : 'min/max'} (calibration ${d.calibration ?? 'n/a'})`
      : undefined;
    await this.observe(fhpa, type, patch, message ? { reason: 'SuccessfulRescale', message } : undefined);
    return { requeueAfterMs: period };
  }

  /** Publishes a status patch when it differs from the last one this leader published (and always for a write). */
  private async observe(
    fhpa: FederatedHPA,
    type: string,
    statusPatch: Record<string, unknown>,
    kubeEvent?: { reason: string; message: string },
    extra: Record<string, unknown> = {},
  ): Promise<void> {
    const key = objectKey({ kind: FEDERATED_HPA_KIND, namespace: fhpa.metadata.namespace, name: fhpa.metadata.name! });
    const { lastScaleTime: _t, lastAssignment: _a, ...comparable } = statusPatch;
    const json = createHash('sha256').update(JSON.stringify(comparable)).digest('base64url').slice(0, 22);
    if (!kubeEvent && this.published.get(key) === json) return;
    const digest = createHash('sha256').update(JSON.stringify({ statusPatch, extra })).digest('hex').slice(0, 16);
    await this.o.publish(
      cloudEvent({
        id: `fhpa.${fhpa.metadata.uid}.${type}.${fhpa.metadata.generation ?? 0}.${digest}`,
        source: CONTROLLER_NAME,
        type,
        kind: FEDERATED_HPA_KIND,
        namespace: fhpa.metadata.namespace,
        name: fhpa.metadata.name!,
        time: this.clock.now(),
        data: { ...extra, statusPatch, ...(kubeEvent ? { kubeEvent: { type: 'Normal', ...kubeEvent } } : {}) },
      }),
    );
    this.published.set(key, json);
  }

  /** The member workloads of a binding, as the member clusters reported them. */
  private membersOf(namespace: string | undefined, bindingName: string) {
    const ref = { kind: 'ResourceBinding', namespace, name: bindingName };
    const binding = this.bindings.get(ref);
    const spec = (binding?.spec ?? {}) as BindingSpecView;
    const entries = (this.bindingStatus.get(ref)?.status?.aggregatedStatus ?? []).filter((e) =>
      spec.clusters?.some((c) => c.name === e.clusterName),
    );
    const ready = new Map(this.clusterList().map((c) => [c.metadata.name ?? '', isReady(c)]));
    const members: MemberReport[] = entries.map((e) => ({
      cluster: e.clusterName,
      clusterReady: ready.get(e.clusterName) ?? false,
      specReplicas: e.status?.replicas ?? 0,
      readyReplicas: e.status?.readyReplicas ?? 0,
      pendingReplicas: e.status?.pendingReplicas ?? 0,
      ...(e.status?.cpuUsageMilli !== undefined ? { cpuUsageMilli: e.status.cpuUsageMilli } : {}),
      ...(e.status?.cpuRequestMilli !== undefined ? { cpuRequestMilli: e.status.cpuRequestMilli } : {}),
    }));
    const hpas: MemberHpaStatus[] = entries
      .filter((e) => e.status?.hpa)
      .map((e) => ({ cluster: e.clusterName, ...e.status!.hpa }));
    return { binding, spec, members, hpas };
  }

  // Karmada's FederatedHPA proposal: member HPAs

  private async assign(key: string, fhpa: FederatedHPA): Promise<ReconcileResult> {
    const spec = fhpa.spec!;
    const ns = fhpa.metadata.namespace;
    const name = fhpa.metadata.name!;
    const targetName = bindingNameOf(spec.scaleTargetRef.name, spec.scaleTargetRef.kind);
    const { binding, spec: bindingSpec, members: reports, hpas } = this.membersOf(ns, targetName);
    if (!binding) {
      await this.observe(fhpa, FederatedHpaEventTypes.FederatedHPAObserved, {
        observedGeneration: fhpa.metadata.generation ?? 0,
        conditions: [
          {
            type: 'AbleToScale',
            status: 'False',
            reason: 'FailedGetBinding',
            message: `${spec.scaleTargetRef.kind} ${spec.scaleTargetRef.name} has no ResourceBinding yet (is it propagated?)`,
          },
        ],
      });
      return;
    }
    const targetRef: ObjectRef = { kind: 'ResourceBinding', namespace: ns, name: targetName };
    const owner = binding.metadata.annotations?.[FederatedHpaAnnotations.owner];
    if (owner !== name) {
      // Marks the target binding as owned: from now on the affinity scheduler filters its clusters and leaves the
      // replicas to the member HPAs (its informer brings the feasible clusters back as an annotation).
      await this.store.update(targetRef, (cur) => ({
        ...cur,
        metadata: {
          ...cur.metadata,
          annotations: { ...cur.metadata.annotations, [FederatedHpaAnnotations.owner]: name },
        },
      }));
      return;
    }
    const feasible = binding.metadata.annotations?.[FederatedHpaAnnotations.feasibleClusters];
    const candidates =
      feasible !== undefined ? feasible.split(',').filter(Boolean) : (bindingSpec.clusters ?? []).map((c) => c.name);
    const hpaBindingRef: ObjectRef = { kind: 'ResourceBinding', namespace: ns, name: bindingNameOf(name, HPA_KIND) };
    const hpaBinding = this.bindings.get(hpaBindingRef);
    const previous = recordedAssignment(hpaBinding);
    const members: MemberStatus[] = reports.map((m) => ({
      cluster: m.cluster,
      specReplicas: m.specReplicas,
      readyReplicas: m.readyReplicas,
      pendingReplicas: m.pendingReplicas,
    }));
    const now = this.clock.now();
    const starved = await this.starvedClusters(key, fhpa, members, now);
    const decision = decideFederatedHpa(
      {
        spec,
        generation: fhpa.metadata.generation ?? 0,
        clusters: this.clusterList(),
        candidates,
        ...(bindingSpec.replicaRequirements?.resourceRequest
          ? { podRequests: bindingSpec.replicaRequirements.resourceRequest }
          : {}),
        members,
        bindingClusters: bindingSpec.clusters ?? [],
        ...(spec.scalingToZero ? federationUtilisation(spec, hpas) : {}),
        ...(previous ? { previous } : {}),
        starved: new Set(starved.keys()),
        optimisePeriodMs: this.o.optimisePeriodMs ?? 300_000,
      },
      now.getTime(),
    );
    if (decision.changed) {
      await this.ensureMemberHpa(fhpa);
      const record = {
        assignments: decision.assignments,
        basis: decision.basis,
        ...(decision.optimisedAtMs !== undefined ? { optimisedAtMs: decision.optimisedAtMs } : {}),
        ...(decision.pinned ? { pinned: decision.pinned } : {}),
      };
      const desired = memberHpaBinding(fhpa, record);
      if (!hpaBinding) {
        await this.store.create(desired).catch(async (err: unknown) => {
          if (!(err instanceof AlreadyExistsError)) throw err;
          await this.writeHpaBinding(hpaBindingRef, name, record);
        });
      } else {
        await this.writeHpaBinding(hpaBindingRef, name, record);
      }
      const clusters = decision.bindingClusters;
      await this.store.update(targetRef, (cur) => {
        const s = cur.spec as BindingSpecView;
        if (isDeepStrictEqual(s.clusters ?? [], clusters)) return undefined;
        return { ...cur, spec: { ...(cur.spec as object), clusters } };
      });
      const appliedAtMs = this.clock.now().getTime();
      for (const m of decision.moves) {
        const dueAtMs = starved.get(m.from);
        this.o.onMove?.({ key, from: m.from, to: m.to, appliedAtMs, ...(dueAtMs !== undefined ? { dueAtMs } : {}) });
      }
    }
    const assignments = decision.assignments;
    const rows = assignmentRows(assignments, members, hpas);
    const moved = decision.changed && decision.reason !== 'Unchanged';
    await this.observe(
      fhpa,
      moved ? FederatedHpaEventTypes.FederatedHPAAssigned : FederatedHpaEventTypes.FederatedHPAObserved,
      assignmentStatusPatch({
        generation: fhpa.metadata.generation ?? 0,
        rows,
        members,
        hpas,
        ...(moved ? { decision } : {}),
        at: now,
      }),
      moved ? { reason: decision.reason, message: decision.message } : undefined,
      moved ? { reason: decision.reason, assignments, moves: decision.moves } : {},
    );
  }

  private async writeHpaBinding(ref: ObjectRef, owner: string, record: RecordedAssignment): Promise<void> {
    await this.store.update(ref, (cur) => ({
      ...cur,
      metadata: {
        ...cur.metadata,
        annotations: { ...withoutRecord(cur.metadata.annotations), ...memberHpaAnnotations(owner, record) },
      },
      spec: { ...(cur.spec as object), clusters: record.assignments.map((a) => ({ name: a.cluster })) },
    }));
  }

  /** Creates or updates the member HPA template from the FederatedHPA's spec. */
  private async ensureMemberHpa(fhpa: FederatedHPA): Promise<void> {
    const desired = memberHpaTemplate(fhpa);
    const ref: ObjectRef = { kind: HPA_KIND, namespace: fhpa.metadata.namespace, name: fhpa.metadata.name! };
    try {
      await this.store.update(ref, (cur) => ({
        ...cur,
        metadata: { ...cur.metadata, annotations: { ...cur.metadata.annotations, ...desired.metadata.annotations } },
        spec: desired.spec,
      }));
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      await this.store.create(desired).catch((e: unknown) => {
        if (!(e instanceof AlreadyExistsError)) throw e;
      });
    }
  }

  /**
   * A FederatedHPA without an assignment (now, or deleted) owns no member HPA: removes what it created and hands the
   * target binding back to the affinity scheduler (the bindings it marked, found by the owner annotation).
   */
  private async releaseMemberHpas(namespace: string | undefined, name: string): Promise<void> {
    const ns = namespace || undefined;
    const owned = (b: StoredObject | undefined) => b?.metadata.annotations?.[FederatedHpaAnnotations.owner] === name;
    const hpaBindingRef = { kind: 'ResourceBinding', namespace: ns, name: bindingNameOf(name, HPA_KIND) };
    const targets = this.bindings
      .values()
      .filter((b) => (b.metadata.namespace || undefined) === ns && owned(b) && b.metadata.name !== hpaBindingRef.name);
    if (!owned(this.bindings.get(hpaBindingRef)) && targets.length === 0) return;
    await this.store.delete(hpaBindingRef).catch(ignoreNotFound);
    const hpa = await this.store.get({ kind: HPA_KIND, namespace: ns, name });
    if (owned(hpa)) await this.store.delete({ kind: HPA_KIND, namespace: ns, name }).catch(ignoreNotFound);
    for (const t of targets) {
      await this.store
        .update({ kind: 'ResourceBinding', namespace: ns, name: t.metadata.name }, (cur) => {
          if (!owned(cur)) return undefined;
          const {
            [FederatedHpaAnnotations.owner]: _o,
            [FederatedHpaAnnotations.feasibleClusters]: _f,
            ...annotations
          } = cur.metadata.annotations ?? {};
          return { ...cur, metadata: { ...cur.metadata, annotations } };
        })
        .catch(ignoreNotFound);
    }
  }

  /** Wakes `key` at `at` (one timer per instant and object; the reconcile then finds the delay run out). */
  private wakeAt(key: string, at: number): void {
    const id = `${key}@${at}`;
    if (this.timers.has(id)) return;
    const timer = setTimeout(
      () => {
        this.timers.delete(id);
        if (this.started) this.workQueue.add(key);
      },
      // A delay past setTimeout's limit (about 24.8 days) waits that long and looks again, instead of firing at once.
      Math.min(Math.max(0, at - this.clock.now().getTime()), MAX_TIMER_MS),
    );
    this.timers.set(id, timer);
  }

  private async starvedClusters(
    key: string,
    fhpa: FederatedHPA,
    members: readonly MemberStatus[],
    now: Date,
  ): Promise<Map<string, number>> {
    const starved = new Map<string, number>();
    const queue = this.queue;
    const policy = fhpa.spec!.federatedHPAAssignment?.federatedHPAAssignmentType ?? 'Duplicated';
    if (!queue || policy === 'Duplicated') return starved;
    const delayMs = (fhpa.spec!.autoscaleMultiClusterDelay ?? this.o.defaultMultiClusterDelaySeconds ?? 30) * 1000;
    const firstLook = !this.swept.has(key);
    this.swept.add(key);
    for (const m of members) {
      const jobId = encodeJobId('pending', fhpa.metadata.uid ?? key, m.cluster);
      if (m.pendingReplicas > 0) {
        const state = await queue.getJobState(jobId);
        if (state === 'unknown') {
          const at = new Date(now.getTime() + delayMs);
          await scheduleAt(queue, jobId, at, { key, cluster: m.cluster }, now);
          this.armed.set(jobId, at.getTime());
          this.wakeAt(key, at.getTime());
        } else if (state === 'active' || state === 'completed') {
          const job = await queue.getJob(jobId);
          starved.set(m.cluster, job ? jobDueAt(job) : now.getTime());
        } else {
          // Still delayed in Redis: its due time is what counts. A local timer wakes the object then, sooner than
          // BullMQ's promotion; the job stays the durable record that survives this leader.
          const job = await queue.getJob(jobId);
          const due = job ? jobDueAt(job) : undefined;
          if (due !== undefined && due <= now.getTime()) starved.set(m.cluster, due);
          else if (due !== undefined) this.wakeAt(key, due);
        }
      } else if (this.armed.has(jobId) || firstLook) {
        // The pods scheduled (or the move was made): the delay starts afresh next time they pend.
        this.armed.delete(jobId);
        await removeJob(queue, jobId).catch((err: unknown) =>
          this.o.logger.warn({ err, jobId }, 'could not remove a delay job'),
        );
      }
    }
    return starved;
  }
}

function ignoreNotFound(err: unknown): void {
  if (!(err instanceof NotFoundError) && (err as Error).name !== 'NotFoundError') throw err;
}

/**
 * The federation's cpu utilisation for scaling to and from zero: the member HPAs' own, weighted by their replicas,
 * against the FederatedHPA's cpu Utilization target. Nothing when either is unknown.
 */
export function federationUtilisation(
  spec: NonNullable<FederatedHPA['spec']>,
  hpas: readonly MemberHpaStatus[],
): { utilisation?: { current: number; target: number } } {
  const metric = spec.metrics?.find(
    (m) => m.type === 'Resource' && m.resource?.name === 'cpu' && m.resource.target.type === 'Utilization',
  );
  const target = metric?.resource?.target.averageUtilization;
  let replicas = 0;
  let weighted = 0;
  for (const h of hpas) {
    if (h.currentCPUUtilizationPercentage === undefined || !h.currentReplicas) continue;
    replicas += h.currentReplicas;
    weighted += h.currentCPUUtilizationPercentage * h.currentReplicas;
  }
  if (target === undefined || replicas === 0) return {};
  return { utilisation: { current: Math.round(weighted / replicas), target } };
}

const KEPT_ANNOTATIONS = Object.values(FederatedHpaAnnotations) as string[];

/** What a pass reads of a binding: identity, the FederatedHPA annotations, resource, clusters and requests. */
export function bindingProjection(o: Obj): Obj {
  const { name, namespace, uid, resourceVersion, generation, annotations } = o.metadata;
  const spec = (o.spec ?? {}) as BindingSpecView & Record<string, unknown>;
  const kept = Object.entries(annotations ?? {}).filter(([k]) => KEPT_ANNOTATIONS.includes(k));
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    metadata: {
      name,
      ...(namespace ? { namespace } : {}),
      ...(uid ? { uid } : {}),
      ...(resourceVersion ? { resourceVersion } : {}),
      ...(generation !== undefined ? { generation } : {}),
      ...(kept.length ? { annotations: Object.fromEntries(kept) } : {}),
    },
    spec: {
      ...(spec.resource ? { resource: spec.resource } : {}),
      ...(spec.clusters ? { clusters: spec.clusters } : {}),
      ...(spec.replicaRequirements?.resourceRequest
        ? { replicaRequirements: { resourceRequest: spec.replicaRequirements.resourceRequest } }
        : {}),
    },
  } as Obj;
}

/** What a pass reads of a binding's status: per cluster the replica counts, cpu and the member HPA's status. */
export function bindingStatusProjection(
  r: StatusRecord<{ aggregatedStatus?: AggregatedEntry[] }>,
): StatusRecord<{ aggregatedStatus?: AggregatedEntry[] }> {
  const entries = r.status?.aggregatedStatus;
  if (!entries) return { seq: r.seq, status: {} };
  return {
    seq: r.seq,
    status: {
      aggregatedStatus: entries.map((e) => {
        const st = e.status;
        if (!st) return { clusterName: e.clusterName };
        const { replicas, readyReplicas, pendingReplicas, cpuUsageMilli, cpuRequestMilli, hpa } = st;
        return {
          clusterName: e.clusterName,
          status: { replicas, readyReplicas, pendingReplicas, cpuUsageMilli, cpuRequestMilli, hpa },
        };
      }),
    },
  };
}

/** What the hpa-assigner recorded on the member HPA's binding with the last assignment. */
export function recordedAssignment(hpaBinding: StoredObject | undefined): RecordedAssignment | undefined {
  const annotations = hpaBinding?.metadata.annotations;
  const limits = parseMemberLimits(annotations);
  const basis = annotations?.[FederatedHpaAnnotations.assignmentBasis];
  if (!limits || basis === undefined) return undefined;
  const optimisedAt = annotations?.[FederatedHpaAnnotations.optimisedAt];
  const pinned = annotations?.[FederatedHpaAnnotations.pinnedMins];
  return {
    assignments: [...limits].map(([cluster, l]) => ({ cluster, ...l })),
    basis,
    ...(optimisedAt ? { optimisedAtMs: Date.parse(optimisedAt) } : {}),
    ...(pinned ? { pinned: parsePinned(pinned) } : {}),
  };
}

/** The pinned-mins annotation; an unreadable one holds nothing (the next pass writes it afresh). */
function parsePinned(text: string): Record<string, number> {
  try {
    const v = JSON.parse(text) as unknown;
    if (typeof v !== 'object' || v === null) return {};
    return Object.fromEntries(
      Object.entries(v).filter((e): e is [string, number] => Number.isInteger(e[1]) && e[1] >= 0),
    );
  } catch {
    return {};
  }
}

/** The annotations of the last record that a new record may leave out (so a released hold does not linger). */
function withoutRecord(annotations: Record<string, string> | undefined): Record<string, string> {
  const {
    [FederatedHpaAnnotations.pinnedMins]: _p,
    [FederatedHpaAnnotations.optimisedAt]: _o,
    ...rest
  } = annotations ?? {};
  return rest;
}
