import { cloudEvent, type Bus, type CloudEvent, type PublishResult } from '@flotilla/bus';
import { WorkQueue, type ReconcileResult } from '@flotilla/controller';
import { decideFailBack, FAIL_BACK_ANNOTATION, needsTrigger, WorkloadEventTypes } from '@flotilla/rebalance';
import { policyClaim, type Cluster, type ResourceBinding } from '@flotilla/scheduling';
import type { Clock } from '@flotilla/runtime';
import {
  Informer,
  objectKey,
  refFromKey,
  type ObjectStore,
  type StatusRecord,
  type StoredObject,
} from '@flotilla/store';
import { CONTROLLER_NAME } from './cloud-events.js';

type Obj = StoredObject & Record<string, unknown>;
const BINDING_KINDS = ['ResourceBinding', 'ClusterResourceBinding'] as const;

export interface FailBackOptions {
  bus: Bus;
  store: ObjectStore;
  publish: (e: CloudEvent) => Promise<PublishResult>;
  clock: Clock;
  logger: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** The controller's binding informers (shared: one cache of the bindings per process). */
  bindings: ReadonlyMap<string, Informer<Obj>>;
}

/** Keeps a policy's identity and annotations only: the fail-back period is all this reads of it. */
const annotationsOnly = (p: Obj): Obj => ({
  apiVersion: p.apiVersion,
  kind: p.kind,
  metadata: { name: p.metadata.name, namespace: p.metadata.namespace, annotations: p.metadata.annotations },
});

/**
 * Opt-in fail-back (decideFailBack): bindings whose claiming policy carries `flotilla.io/fail-back-after` are
 * watched, with the clusters; once an earlier affinity group has been able to hold one for the period, its
 * spec.rescheduleTriggeredAt is set to now (one compare-and-set) and a FailBackTriggered event recorded on it.
 * When the earlier group became able to hold it is kept in memory: a new leader starts that clock again, so a
 * fail-back can come later than the period after a leader change, never earlier.
 */
export class FailBack {
  readonly queue: WorkQueue;
  private readonly policies: Informer<Obj>;
  private readonly clusterPolicies: Informer<Obj>;
  /** Clusters and binding status, watched only while some policy opts in (every status fold is a message to decode). */
  private watching?: {
    clusters: Informer<Obj>;
    clusterStatus: Informer<StatusRecord>;
    bindingStatus: Map<string, Informer<StatusRecord>>;
    ready: Promise<unknown>;
  };
  private readonly holdingSince = new Map<string, string>();
  private started = false;

  constructor(private readonly o: FailBackOptions) {
    this.queue = new WorkQueue((k) => this.reconcile(k), {
      concurrency: 8,
      onError: (key, err, attempt) => o.logger.warn({ err, key, attempt }, 'fail-back check failed; retrying'),
    });
    const onPolicy = () => {
      if (this.started) this.follow();
    };
    this.policies = new Informer<Obj>({
      bus: o.bus,
      bucket: 'objects',
      kind: 'PropagationPolicy',
      onEvent: onPolicy,
      projection: { name: 'annotationsOnly', project: annotationsOnly },
    });
    this.clusterPolicies = new Informer<Obj>({
      bus: o.bus,
      bucket: 'objects',
      kind: 'ClusterPropagationPolicy',
      onEvent: onPolicy,
      projection: { name: 'annotationsOnly', project: annotationsOnly },
    });
  }

  async start(): Promise<void> {
    await Promise.all([this.policies.start(), this.clusterPolicies.start()]);
    this.started = true;
    this.follow();
    await this.watching?.ready;
  }

  async stop(): Promise<void> {
    this.started = false;
    this.policies.stop();
    this.clusterPolicies.stop();
    this.unwatch();
    await this.queue.stop();
  }

  /** Watches clusters and binding status while a policy opts in, and stops when none does; then checks every candidate. */
  private follow(): void {
    const optedIn = [...this.policies.values(), ...this.clusterPolicies.values()].some(
      (p) => p.metadata.annotations?.[FAIL_BACK_ANNOTATION],
    );
    if (optedIn && !this.watching) {
      const everything = () => {
        if (this.started) this.sweep();
      };
      const bindingStatus = new Map(
        BINDING_KINDS.map((kind) => [
          kind as string,
          new Informer<StatusRecord>({
            bus: this.o.bus,
            bucket: 'status',
            kind,
            onEvent: (e) => this.bindingChanged(e.key),
          }),
        ]),
      );
      const clusters = new Informer<Obj>({ bus: this.o.bus, bucket: 'objects', kind: 'Cluster', onEvent: everything });
      const clusterStatus = new Informer<StatusRecord>({
        bus: this.o.bus,
        bucket: 'status',
        kind: 'Cluster',
        onEvent: everything,
      });
      const ready = Promise.all([
        clusters.start(),
        clusterStatus.start(),
        ...[...bindingStatus.values()].map((i) => i.start()),
      ]).then(everything);
      // Awaited by the next pass; until then a failed list must not surface as an unhandled rejection.
      ready.catch(() => undefined);
      this.watching = { clusters, clusterStatus, bindingStatus, ready };
    } else if (!optedIn && this.watching) this.unwatch();
    else if (optedIn) this.sweep();
  }

  private unwatch(): void {
    const w = this.watching;
    this.watching = undefined;
    if (!w) return;
    for (const i of [w.clusters, w.clusterStatus, ...w.bindingStatus.values()] as Array<Informer<unknown>>) i.stop();
    this.holdingSince.clear();
  }

  /** A binding (or its status) changed: check it, if its policy opted in. */
  bindingChanged(key: string): void {
    if (this.started && this.watching && this.policyAnnotationsOf(key) !== undefined) this.queue.add(key);
  }

  /** Every opted-in binding, in the background lane (a cluster or policy changed, or the resync). */
  sweep(): void {
    if (!this.watching) return;
    for (const inf of this.o.bindings.values())
      for (const key of inf.cache.keys())
        if (this.policyAnnotationsOf(key) !== undefined) this.queue.addBackground(key);
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
    return [...w.clusters.cache.entries()].map(
      ([key, { value }]) => ({ ...value, status: w.clusterStatus.cache.get(key)?.value.status }) as unknown as Cluster,
    );
  }

  private async reconcile(key: string): Promise<ReconcileResult> {
    const ref = refFromKey(key);
    const cached = this.o.bindings.get(ref.kind)?.cache.get(key);
    const annotations = this.policyAnnotationsOf(key);
    const w = this.watching;
    if (!cached || !annotations || !w) {
      this.holdingSince.delete(key);
      return;
    }
    const binding = {
      ...cached.value,
      status: w.bindingStatus.get(ref.kind)?.cache.get(key)?.value.status,
    } as unknown as ResourceBinding;
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
        },
      }),
    );
  }
}
