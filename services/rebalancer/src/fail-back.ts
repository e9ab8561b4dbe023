import { Controllers } from '@flotilla/catalogue';
import { cloudEvent, type CloudEvent, type PublishResult } from '@flotilla/bus';
import {
  defineController,
  type Controller,
  type ControllerLogger,
  type FailureEvents,
  type ReconcileResult,
  type WorkQueue,
} from '@flotilla/controller';
import { decideFailBack, FAIL_BACK_ANNOTATION, needsTrigger, WorkloadEventTypes } from '@flotilla/rebalance';
import { policyClaim, type Cluster, type ResourceBinding } from '@flotilla/scheduling';
import type { StatusOfKind } from '@flotilla/api';
import type { FailBackTriggeredData } from '@flotilla/replica-trail';
import type { Clock } from '@flotilla/runtime';
import {
  allWithStatus,
  hasSpec,
  objectKey,
  withStatus,
  type CachedKind,
  type Informer,
  type Informers,
  type Subscription,
  refFromKey,
  type ObjectStore,
  type StatusRecord,
  type StoredObject,
} from '@flotilla/store';
import type { Registry } from 'prom-client';
import { CONTROLLER_NAME } from './cloud-events.js';

const BINDING_KINDS = ['ResourceBinding', 'ClusterResourceBinding'] as const;
type BindingKind = (typeof BINDING_KINDS)[number];
/** A policy as fail-back keeps it: identity and annotations (ANNOTATIONS_ONLY). */
type PolicyAnnotations = Pick<StoredObject, 'apiVersion' | 'kind' | 'metadata'>;

export interface FailBackOptions {
  store: ObjectStore;
  publish: (e: CloudEvent) => Promise<PublishResult>;
  clock: Clock;
  logger: ControllerLogger;
  /** The process's shared informers: policies, and clusters and binding status while some policy opts in. */
  informers: Informers;
  /** The rebalancer's binding informers (shared: one cache of the bindings per process). */
  bindings: ReadonlyMap<string, Informer<CachedKind<BindingKind>>>;
  /** Every candidate is checked again this often. */
  resyncMs: number;
  registry?: Registry;
  failureEvents?: FailureEvents;
}

/** Keeps a policy's identity and annotations only: the fail-back period is all this reads of it. */
const ANNOTATIONS_ONLY = {
  name: 'fail-back-policy-annotations',
  project: (p: StoredObject): PolicyAnnotations => ({
    apiVersion: p.apiVersion,
    kind: p.kind,
    metadata: { name: p.metadata.name, namespace: p.metadata.namespace, annotations: p.metadata.annotations },
  }),
};

/** The `controller` label of fail-back's metrics. */
export const FAIL_BACK_CONTROLLER_NAME = Controllers.failBack;

/**
 * Opt-in fail-back (decideFailBack): bindings whose claiming policy carries `flotilla.io/fail-back-after` are
 * watched, with the clusters; once an earlier affinity group has been able to hold one for the period, its
 * spec.rescheduleTriggeredAt is set to now (one compare-and-set) and a FailBackTriggered event recorded on it.
 * When the earlier group became able to hold it is kept in memory: a new leader starts that clock again, so a
 * fail-back can come later than the period after a leader change, never earlier.
 */
export class FailBack {
  private readonly controller: Controller;
  private readonly policies: Informer<PolicyAnnotations>;
  private readonly clusterPolicies: Informer<PolicyAnnotations>;
  /** Clusters and binding status, watched only while some policy opts in (every status fold is a message to decode). */
  private watching?: {
    clusters: Informer<CachedKind<'Cluster'>>;
    clusterStatus: Informer<StatusRecord<StatusOfKind<'Cluster'>>>;
    bindingStatus: Map<string, Informer<StatusRecord<StatusOfKind<BindingKind>>>>;
    subscriptions: Subscription[];
    ready: Promise<unknown>;
  };
  private readonly holdingSince = new Map<string, string>();

  constructor(private readonly o: FailBackOptions) {
    this.policies = o.informers.objects('PropagationPolicy', ANNOTATIONS_ONLY);
    this.clusterPolicies = o.informers.objects('ClusterPropagationPolicy', ANNOTATIONS_ONLY);
    const follow = () => this.follow();
    this.controller = defineController({
      name: FAIL_BACK_CONTROLLER_NAME,
      watches: [
        { source: this.policies, onChange: follow },
        { source: this.clusterPolicies, onChange: follow },
        ...[...o.bindings.values()].map((source) => ({
          source,
          onChange: (e: { key: string }) => this.bindingChanged(e.key),
        })),
      ],
      // The opted-in bindings, while clusters are watched.
      keys: () => this.candidates(),
      reconcile: (k) => this.reconcile(k),
      concurrency: 8,
      resyncMs: o.resyncMs,
      resyncSpread: false,
      logger: o.logger,
      registry: o.registry,
      failureEvents: o.failureEvents,
    });
  }

  /** The controller's work queue (for tests). */
  get queue(): WorkQueue {
    return this.controller.queue;
  }

  async start(): Promise<void> {
    await this.controller.start();
    this.follow();
    await this.watching?.ready;
  }

  async stop(): Promise<void> {
    this.unwatch();
    await this.controller.stop();
  }

  /** Watches clusters and binding status while a policy opts in, and stops when none does; then checks every candidate. */
  private follow(): void {
    if (!this.controller.started) return;
    const optedIn = [...this.policies.values(), ...this.clusterPolicies.values()].some(
      (p) => p.metadata.annotations?.[FAIL_BACK_ANNOTATION],
    );
    if (optedIn && !this.watching) {
      const everything = () => this.sweep();
      const bindingStatus = new Map(BINDING_KINDS.map((kind) => [kind as string, this.o.informers.status(kind)]));
      const clusters = this.o.informers.objects('Cluster');
      const clusterStatus = this.o.informers.status('Cluster');
      const subscriptions = [
        clusters.subscribe(everything),
        clusterStatus.subscribe(everything),
        ...[...bindingStatus.values()].map((i) => i.subscribe((e) => this.bindingChanged(e.key))),
      ];
      const ready = Promise.all(subscriptions.map((sub) => sub.synced)).then(everything);
      // Awaited by the next pass; until then a failed list must not surface as an unhandled rejection.
      ready.catch(() => undefined);
      this.watching = { clusters, clusterStatus, bindingStatus, subscriptions, ready };
    } else if (!optedIn && this.watching) this.unwatch();
    else if (optedIn) this.sweep();
  }

  private unwatch(): void {
    const w = this.watching;
    this.watching = undefined;
    if (!w) return;
    for (const sub of w.subscriptions) sub.unsubscribe();
    this.holdingSince.clear();
  }

  /** A binding (or its status) changed: check it, if its policy opted in. */
  bindingChanged(key: string): void {
    if (this.watching && this.policyAnnotationsOf(key) !== undefined) this.controller.enqueue(key);
  }

  /** Every opted-in binding, in the background lane (a cluster or policy changed, or the resync). */
  sweep(): void {
    this.controller.enqueueAll();
  }

  private *candidates(): Generator<string> {
    if (!this.watching) return;
    for (const inf of this.o.bindings.values())
      for (const key of inf.cache.keys()) if (this.policyAnnotationsOf(key) !== undefined) yield key;
  }

  /** The claiming policy's annotations when it opted in to fail-back; undefined otherwise. */
  private policyAnnotationsOf(bindingKey: string): Record<string, string> | undefined {
    const ref = refFromKey(bindingKey);
    const b = this.o.bindings.get(ref.kind)?.cache.get(bindingKey)?.value;
    const claim = policyClaim(b?.metadata.annotations);
    if (!claim) return undefined;
    const inf = claim.kind === 'PropagationPolicy' ? this.policies : this.clusterPolicies;
    const annotations = inf.get({ kind: claim.kind, namespace: claim.namespace, name: claim.name })?.metadata
      .annotations;
    return annotations?.[FAIL_BACK_ANNOTATION] ? annotations : undefined;
  }

  private clusterViews(w: NonNullable<FailBack['watching']>): Cluster[] {
    return allWithStatus(w.clusters, w.clusterStatus);
  }

  private async reconcile(key: string): Promise<ReconcileResult> {
    const ref = refFromKey(key);
    const cached = this.o.bindings.get(ref.kind)?.cache.get(key);
    const annotations = this.policyAnnotationsOf(key);
    const w = this.watching;
    if (!cached || !hasSpec(cached.value) || !annotations || !w) {
      this.holdingSince.delete(key);
      return;
    }
    const binding: ResourceBinding = withStatus(cached.value, key, w.bindingStatus.get(ref.kind));
    const now = this.o.clock.now();
    const d = decideFailBack({
      binding,
      policyAnnotations: annotations,
      clusters: this.clusterViews(w),
      now,
      holdingSince: this.holdingSince.get(key),
    });
    if (d.action === 'none') {
      this.holdingSince.delete(key);
      return;
    }
    this.holdingSince.set(key, d.holdingSince);
    if (d.action === 'wait') return { requeueAfterMs: d.recheckAfterMs };
    const at = d.rescheduleTriggeredAt;
    const written = await this.o.store.update(
      ref,
      (cur) => {
        const spec = cur.spec as ResourceBinding['spec'];
        return needsTrigger(spec.rescheduleTriggeredAt, at)
          ? { ...cur, spec: { ...spec, rescheduleTriggeredAt: at } }
          : undefined;
      },
      { cached },
    );
    this.holdingSince.delete(key);
    if (!written) return;
    const message = `group ${d.toGroup} could hold the workload again for ${annotations[FAIL_BACK_ANNOTATION]}: Fresh rescheduling from group ${d.fromGroup}`;
    this.o.logger.info({ binding: objectKey(ref), from: d.fromGroup, to: d.toGroup }, 'fail-back triggered');
    await this.o.publish(
      cloudEvent({
        id: `${binding.metadata.uid ?? key}/FailBackTriggered/${at}`,
        source: CONTROLLER_NAME,
        type: WorkloadEventTypes.FailBackTriggered,
        kind: ref.kind,
        namespace: ref.namespace,
        name: ref.name,
        time: now,
        data: {
          fromGroup: d.fromGroup,
          toGroup: d.toGroup,
          rescheduleTriggeredAt: at,
          holdingSince: d.holdingSince,
          kubeEvent: { type: 'Normal', reason: 'FailBackTriggered', message },
        } satisfies FailBackTriggeredData,
      }),
    );
  }
}
