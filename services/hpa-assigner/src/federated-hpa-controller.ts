import { Controllers } from '@flotilla/catalogue';
import { createHash } from 'node:crypto';
import type { FederatedHPA, ResourceBinding, ResourceBindingSpec } from '@flotilla/api';
import { cloudEvent, type Bus, type CloudEvent } from '@flotilla/bus';
import { WorkQueue, type ReconcileResult } from '@flotilla/controller';
import {
  memberHpaStatuses,
  memberReports,
  type AggregatedWorkloadEntry,
  type MemberHpaStatus,
  type MemberReport,
} from '@flotilla/hpa-math';
import { systemClock, type Clock } from '@flotilla/runtime';
import { isReady, type Cluster } from '@flotilla/scheduling';
import { Informer, ObjectStore, objectKey, refFromKey, type StatusRecord, type StoredObject } from '@flotilla/store';
import type { Redis } from 'ioredis';
import { AssignmentMode } from './assignment-mode.js';
import { CentralizedMode } from './centralized-mode.js';
import { bindingNameOf, HPA_KIND } from './member-objects.js';
import { bindingProjection, bindingStatusProjection } from './projections.js';

export const CONTROLLER_NAME = Controllers.federatedHpa;
export const FEDERATED_HPA_KIND = 'FederatedHPA';

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
/** What a pass reads of a binding's spec (bindingProjection keeps these). */
export type BindingSpecRead = Partial<Pick<ResourceBindingSpec, 'resource' | 'clusters' | 'replicaRequirements'>>;

/** The member clusters' reports on a binding, as both modes read them. */
export interface BindingMembers {
  binding?: StoredObject;
  spec: BindingSpecRead;
  members: MemberReport[];
  hpas: MemberHpaStatus[];
}

/** What the two modes share of the controller: the store, the caches, the work queue and the status publisher. */
export interface FederatedHpaPass {
  readonly store: ObjectStore;
  readonly clock: Clock;
  readonly logger: ControllerLogger;
  /** The binding as cached (projected), if any. */
  binding(ref: { namespace?: string; name: string }): StoredObject | undefined;
  /** Every cached binding (projected). */
  bindings(): StoredObject[];
  clusters(): Cluster[];
  membersOf(namespace: string | undefined, bindingName: string): BindingMembers;
  /** Queues `key` (no-op once stopped). */
  enqueue(key: string): void;
  /** Publishes a status patch when it differs from the last one published (and always with a Kubernetes event). */
  observe(
    fhpa: FederatedHPA,
    type: string,
    statusPatch: Record<string, unknown>,
    kubeEvent?: { reason: string; message: string },
    extra?: Record<string, unknown>,
  ): Promise<void>;
}

/**
 * The FederatedHPA controller: per object a work-queue key, and the mode the object chooses does the pass —
 * - without `spec.federatedHPAAssignment`, Karmada's shipped FederatedHPA (centralized-mode.ts);
 * - with it, Karmada's FederatedHPA proposal: member HPAs with assigned min/max (assignment-mode.ts).
 * A FederatedHPA that leaves the assignment mode (or is deleted) releases what that mode created. Every write is a
 * compare-and-set; only the leader runs it.
 */
export class FederatedHpaController {
  private readonly clock: Clock;
  private readonly store: ObjectStore;
  private readonly fhpas: Informer<Obj>;
  private readonly bindingCache: Informer<Obj>;
  private readonly bindingStatus: Informer<StatusRecord<{ aggregatedStatus?: AggregatedWorkloadEntry[] }>>;
  private readonly clusterCache: Informer<Obj>;
  private readonly clusterStatus: Informer<StatusRecord>;
  readonly workQueue: WorkQueue;
  /** Target binding key → the FederatedHPA keys that scale it. */
  private readonly byTarget = new Map<string, Set<string>>();
  /** A digest of the last status patch published per FederatedHPA, so an unchanged pass publishes nothing. */
  private readonly published = new Map<string, string>();
  private readonly centralized: CentralizedMode;
  private readonly assignment: AssignmentMode;
  private syncTimer?: NodeJS.Timeout;
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
    this.bindingCache = new Informer<Obj>({
      bus: o.bus,
      bucket: 'objects',
      kind: 'ResourceBinding',
      onEvent: onBinding,
      projection: { name: 'bindingProjection', project: bindingProjection },
    });
    this.bindingStatus = new Informer<StatusRecord<{ aggregatedStatus?: AggregatedWorkloadEntry[] }>>({
      bus: o.bus,
      bucket: 'status',
      kind: 'ResourceBinding',
      onEvent: onBinding,
      projection: { name: 'bindingStatusProjection', project: bindingStatusProjection },
    });
    const onCluster = () => {
      if (this.started) for (const k of this.fhpas.cache.keys()) this.workQueue.addBackground(k);
    };
    this.clusterCache = new Informer<Obj>({ bus: o.bus, bucket: 'objects', kind: 'Cluster', onEvent: onCluster });
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
    const pass = this.pass();
    this.centralized = new CentralizedMode(pass, {
      syncPeriodMs: o.syncPeriodMs ?? 15_000,
      ...(o.downscaleStabilizationWindowSeconds !== undefined
        ? { downscaleStabilizationWindowSeconds: o.downscaleStabilizationWindowSeconds }
        : {}),
    });
    this.assignment = new AssignmentMode(pass, {
      redis: o.redis,
      queuePrefix: o.queuePrefix,
      queueName: o.queueName ?? CONTROLLER_NAME,
      optimisePeriodMs: o.optimisePeriodMs ?? 300_000,
      defaultMultiClusterDelaySeconds: o.defaultMultiClusterDelaySeconds ?? 30,
      ...(o.onMove ? { onMove: o.onMove } : {}),
    });
  }

  private pass(): FederatedHpaPass {
    return {
      store: this.store,
      clock: this.clock,
      logger: this.o.logger,
      binding: (ref) => this.bindingCache.get({ kind: 'ResourceBinding', ...ref }),
      bindings: () => this.bindingCache.values(),
      clusters: () => this.clusterList(),
      membersOf: (ns, name) => this.membersOf(ns, name),
      enqueue: (key) => {
        if (this.started) this.workQueue.add(key);
      },
      observe: (...args) => this.observe(...args),
    };
  }

  private informers(): Array<Informer<unknown>> {
    return [this.clusterCache, this.clusterStatus, this.bindingCache, this.bindingStatus, this.fhpas] as Array<
      Informer<unknown>
    >;
  }

  async start(): Promise<void> {
    await Promise.all(this.informers().map((i) => i.start()));
    await this.assignment.start();
    this.started = true;
    for (const k of this.fhpas.cache.keys()) this.workQueue.add(k);
    this.syncTimer = setInterval(() => {
      for (const k of this.fhpas.cache.keys()) this.workQueue.addBackground(k);
    }, this.o.syncPeriodMs ?? 15_000);
  }

  async stop(): Promise<void> {
    this.started = false;
    clearInterval(this.syncTimer);
    for (const i of this.informers()) i.stop();
    await this.assignment.stop();
    await this.workQueue.stop();
    await this.assignment.close();
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
    return [...this.clusterCache.cache.entries()].map(
      ([key, { value }]) =>
        ({ ...value, status: this.clusterStatus.cache.get(key)?.value.status }) as unknown as Cluster,
    );
  }

  private async reconcile(key: string): Promise<ReconcileResult> {
    const fhpa = this.fhpas.cache.get(key)?.value as unknown as FederatedHPA | undefined;
    if (!fhpa?.spec) {
      this.centralized.forget(key);
      this.assignment.forget(key);
      this.published.delete(key);
      // Deleted: its member HPAs go, and the scheduler divides the target's replicas again.
      const ref = refFromKey(key);
      await this.assignment.release(ref.namespace, ref.name);
      return;
    }
    if (fhpa.spec.federatedHPAAssignment) return this.assignment.reconcile(key, fhpa);
    await this.assignment.release(fhpa.metadata.namespace, fhpa.metadata.name!);
    return this.centralized.reconcile(key, fhpa);
  }

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

  /** The member workloads of a binding and their member HPAs, as the member clusters reported them. */
  private membersOf(namespace: string | undefined, bindingName: string): BindingMembers {
    const ref = { kind: 'ResourceBinding', namespace, name: bindingName };
    const binding = this.bindingCache.get(ref);
    const spec = ((binding as ResourceBinding | undefined)?.spec ?? {}) as BindingSpecRead;
    const bound = (spec.clusters ?? []).map((c) => c.name);
    const entries = this.bindingStatus.get(ref)?.status?.aggregatedStatus ?? [];
    const ready = new Map(this.clusterList().map((c) => [c.metadata.name ?? '', isReady(c)]));
    return {
      ...(binding ? { binding } : {}),
      spec,
      members: memberReports(entries, bound, ready),
      hpas: memberHpaStatuses(entries, bound),
    };
  }
}
