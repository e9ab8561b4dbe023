import { Controllers } from '@flotilla/catalogue';
import type { FederatedHPA } from '@flotilla/api';
import { defineController, type Controller, type ReconcileResult, type WorkQueue } from '@flotilla/controller';
import { systemClock, type Clock } from '@flotilla/runtime';
import {
  bindingKeyOfUsageKey,
  Informers,
  ObjectStore,
  refFromKey,
  type Informer,
  type InformerEvent,
  type CachedKind,
  type StatusRecord,
} from '@flotilla/store';
import { AssignmentMode, type PendingJob } from './assignment-mode.js';
import { CentralizedMode } from './centralized-mode.js';
import { MemberCaches, TargetIndex } from './member-caches.js';
import { FEDERATED_HPA_PROJECTION } from './projections.js';
import { StatusPublisher } from './status-publisher.js';
import { bindingNameOf, HPA_KIND } from './member-objects.js';
import {
  FEDERATED_HPA_DEFAULTS,
  type FederatedHpaPass,
  type HpaControllerDependencies,
  type MoveReport,
} from './pass.js';

export const CONTROLLER_NAME = Controllers.federatedHpa;
export const FEDERATED_HPA_KIND = 'FederatedHPA';

export interface FederatedHpaControllerOptions extends HpaControllerDependencies {
  /** Every FederatedHPA is evaluated this often (Karmada's --horizontal-pod-autoscaler-sync-period). Default 15 s. */
  syncPeriodMs?: number;
  /** How often the max of an assignment is re-split (Karmada's FederatedHPA proposal). Default 5 minutes. */
  optimisePeriodMs?: number;
  /** The delay before a cluster with pending pods gives up max, when the FederatedHPA sets none. Default 30 s. */
  defaultMultiClusterDelaySeconds?: number;
  downscaleStabilizationWindowSeconds?: number;
  concurrency?: number;
  onMove?: (r: MoveReport) => void;
  /** The process's shared informers; a controller of its own gets private ones. */
  informers?: Informers;
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
  private readonly fhpas: Informer<CachedKind<typeof FEDERATED_HPA_KIND>>;
  /** The FederatedHPAs' folded status: where a pass reads its previous assignment. */
  private readonly fhpaStatus: Informer<StatusRecord<Record<string, unknown>>>;
  private readonly caches: MemberCaches;
  private readonly controller: Controller<PendingJob>;
  /** Target binding key → the FederatedHPA keys that scale it. */
  private readonly targets = new TargetIndex();
  /** Status patches out, each only when it differs from the last one published. */
  private readonly status: StatusPublisher;
  private readonly centralized: CentralizedMode;
  private readonly assignment: AssignmentMode;

  constructor(private readonly o: FederatedHpaControllerOptions) {
    this.clock = o.clock ?? systemClock;
    this.store = o.store ?? new ObjectStore(o.bus);
    this.status = new StatusPublisher({
      kind: FEDERATED_HPA_KIND,
      idPrefix: 'fhpa',
      source: CONTROLLER_NAME,
      volatileFields: ['lastScaleTime', 'lastAssignment'],
      publish: o.publish,
      clock: this.clock,
    });
    const informers = o.informers ?? new Informers({ bus: o.bus });
    this.fhpas = informers.objects(FEDERATED_HPA_KIND, FEDERATED_HPA_PROJECTION);
    this.fhpaStatus = informers.status(FEDERATED_HPA_KIND);
    this.caches = new MemberCaches(informers);
    const onBinding = (e: { key: string }, c: { enqueue(key: string): void }) => {
      for (const k of this.targets.readersOf(e.key)) c.enqueue(k);
    };
    const syncPeriodMs = o.syncPeriodMs ?? FEDERATED_HPA_DEFAULTS.syncPeriodMs;
    this.controller = defineController<PendingJob>({
      name: CONTROLLER_NAME,
      watches: [
        {
          source: this.fhpas,
          onEvent: (e: InformerEvent<CachedKind<typeof FEDERATED_HPA_KIND>>) =>
            this.index(e.key, e.type === 'upsert' ? e.value : undefined),
        },
        // Read for the previous assignment: the status this controller publishes changes nothing by itself.
        { source: this.fhpaStatus, onChange: () => undefined },
        { source: this.caches.bindings, onChange: onBinding },
        { source: this.caches.bindingStatus, onChange: onBinding },
        // A usage key is its binding's key and a cluster: a move wakes the binding's readers.
        { source: this.caches.usage, onChange: (e, c) => onBinding({ key: bindingKeyOfUsageKey(e.key) }, c) },
        { source: this.caches.clusters, onChange: (_e, c) => c.enqueueAll() },
        { source: this.caches.clusterStatus, onChange: (_e, c) => c.enqueueAll() },
      ],
      reconcile: (k) => this.reconcile(k),
      // Every FederatedHPA each sync period, all at once behind the changes (Karmada's sync period).
      resyncMs: syncPeriodMs,
      resyncSpread: false,
      concurrency: o.concurrency ?? FEDERATED_HPA_DEFAULTS.concurrency,
      logger: o.logger,
      registry: o.registry,
      failureEvents: { publish: o.publish, objectOf: refFromKey },
      delayed: {
        redis: o.redis,
        prefix: o.queuePrefix,
        queueName: o.queueName ?? CONTROLLER_NAME,
        // The delay ran out: the pass finds the job active or completed and treats the cluster as starved, as long as
        // its pods still pend. A leader that dies before acting leaves the job completed for the next one to find.
        handler: async (job) => this.controller.enqueue(job.data.key),
      },
    });
    const pass = this.pass();
    this.centralized = new CentralizedMode(pass, {
      syncPeriodMs,
      ...(o.downscaleStabilizationWindowSeconds !== undefined
        ? { downscaleStabilizationWindowSeconds: o.downscaleStabilizationWindowSeconds }
        : {}),
    });
    this.assignment = new AssignmentMode(pass, {
      queue: () => this.controller.delayedQueue,
      optimisePeriodMs: o.optimisePeriodMs ?? FEDERATED_HPA_DEFAULTS.optimisePeriodMs,
      defaultMultiClusterDelaySeconds:
        o.defaultMultiClusterDelaySeconds ?? FEDERATED_HPA_DEFAULTS.defaultMultiClusterDelaySeconds,
      ...(o.onMove ? { onMove: o.onMove } : {}),
    });
  }

  /** The controller's work queue (for tests and benchmarks). */
  get workQueue(): WorkQueue {
    return this.controller.queue;
  }

  private pass(): FederatedHpaPass {
    return {
      store: this.store,
      clock: this.clock,
      logger: this.o.logger,
      binding: (ref) => this.caches.bindings.get({ kind: 'ResourceBinding', ...ref }),
      bindings: () => this.caches.bindings.values(),
      clusters: () => this.caches.clusterList(),
      membersOf: (ns, name) => this.caches.membersOf(ns, name),
      statusOf: (key) => this.fhpaStatus.cache.get(key)?.value.status,
      enqueue: (key) => this.controller.enqueue(key),
      observe: (...args) => this.status.observe(...args),
    };
  }

  async start(): Promise<void> {
    await this.controller.start();
  }

  async stop(): Promise<void> {
    // The pending-pods timers first: a timer that fires meanwhile queues nothing.
    this.assignment.stop();
    await this.controller.stop();
  }

  /** Resolves when no reconcile is queued or running: for tests and benchmarks. */
  async idle(): Promise<void> {
    await this.controller.idle();
  }

  /** Once the caches hold every write made before the call, a sync pass over every FederatedHPA (the kit's nextPass). */
  nextPass(): Promise<void> {
    return this.controller.nextPass();
  }

  private index(key: string, fhpa: FederatedHPA | undefined): void {
    const ref = fhpa?.spec?.scaleTargetRef;
    this.targets.set(
      key,
      fhpa?.metadata.namespace,
      ref ? [bindingNameOf(ref.name, ref.kind), bindingNameOf(fhpa.metadata.name!, HPA_KIND)] : [],
    );
  }

  private async reconcile(key: string): Promise<ReconcileResult> {
    const fhpa = this.fhpas.cache.get(key)?.value;
    if (!fhpa?.spec) {
      this.centralized.forget(key);
      this.assignment.forget(key);
      this.status.forget(key);
      // Deleted: its member HPAs go, and the scheduler divides the target's replicas again.
      const ref = refFromKey(key);
      await this.assignment.release(ref.namespace, ref.name);
      return;
    }
    if (fhpa.spec.federatedHPAAssignment) return this.assignment.reconcile(key, fhpa);
    await this.assignment.release(fhpa.metadata.namespace, fhpa.metadata.name!);
    return this.centralized.reconcile(key, fhpa);
  }
}
