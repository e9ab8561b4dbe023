import { cloudEvent, type Bus, type CloudEvent, type PublishResult } from '@flotilla/bus';
import { WorkQueue } from '@flotilla/controller';
import { decideFailBack, FAIL_BACK_ANNOTATION, needsTrigger, WorkloadEventTypes } from '@flotilla/rebalance';
import { policyClaim, type Cluster, type ResourceBinding } from '@flotilla/scheduling';
import type { Clock } from '@flotilla/runtime';
import { Informer, objectKey, refFromKey, type ObjectStore, type StatusRecord, type StoredObject } from '@flotilla/store';
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
const annotationsOnly = (p: Obj): Obj => ({ apiVersion: p.apiVersion, kind: p.kind, metadata: { name: p.metadata.name, namespace: p.metadata.namespace, annotations: p.metadata.annotations } });

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
  private readonly clusters: Informer<Obj>;
  private readonly clusterStatus: Informer<StatusRecord>;
  private readonly bindingStatus = new Map<string, Informer<StatusRecord>>();
  private readonly holdingSince = new Map<string, string>();
  private started = false;

  constructor(private readonly o: FailBackOptions) {
    this.queue = new WorkQueue((k) => this.reconcile(k), { concurrency: 8, onError: (key, err, attempt) => o.logger.warn({ err, key, attempt }, 'fail-back check failed; retrying') });
    const everything = () => {
      if (this.started) this.sweep();
    };
    this.policies = new Informer<Obj>(o.bus, 'objects', 'PropagationPolicy', everything, annotationsOnly);
    this.clusterPolicies = new Informer<Obj>(o.bus, 'objects', 'ClusterPropagationPolicy', everything, annotationsOnly);
    this.clusters = new Informer<Obj>(o.bus, 'objects', 'Cluster', everything);
    this.clusterStatus = new Informer<StatusRecord>(o.bus, 'status', 'Cluster', everything);
    for (const kind of BINDING_KINDS) {
      this.bindingStatus.set(kind, new Informer<StatusRecord>(o.bus, 'status', kind, (e) => this.bindingChanged(e.key)));
    }
  }

  private informers(): Array<Informer<unknown>> {
    return [this.policies, this.clusterPolicies, this.clusters, this.clusterStatus, ...this.bindingStatus.values()] as Array<Informer<unknown>>;
  }

  async start(): Promise<void> {
    await Promise.all(this.informers().map((i) => i.start()));
    this.started = true;
  }

  async stop(): Promise<void> {
    this.started = false;
    for (const i of this.informers()) i.stop();
    await this.queue.stop();
  }

  /** A binding (or its status) changed: check it, if its policy opted in. */
  bindingChanged(key: string): void {
    if (this.started && this.policyAnnotationsOf(key) !== undefined) this.queue.add(key);
  }

  /** Every opted-in binding, in the background lane (a cluster or policy changed, or the resync). */
  sweep(): void {
    for (const inf of this.o.bindings.values()) for (const key of inf.cache.keys()) if (this.policyAnnotationsOf(key) !== undefined) this.queue.addBackground(key);
  }

  /** The claiming policy's annotations when it opted in to fail-back; undefined otherwise. */
  private policyAnnotationsOf(bindingKey: string): Record<string, string> | undefined {
    const ref = refFromKey(bindingKey);
    const b = this.o.bindings.get(ref.kind)?.cache.get(bindingKey)?.value;
    const claim = policyClaim(b?.metadata.annotations);
    if (!claim) return undefined;
    const inf = claim.kind === 'PropagationPolicy' ? this.policies : this.clusterPolicies;
    const annotations = inf.get({ kind: claim.kind, namespace: claim.namespace, name: claim.name })?.metadata.annotations;
    return annotations?.[FAIL_BACK_ANNOTATION] ? annotations : undefined;
  }

  private clusterViews(): Cluster[] {
    return [...this.clusters.cache.entries()].map(([key, { value }]) => ({ ...value, status: this.clusterStatus.cache.get(key)?.value.status }) as unknown as Cluster);
  }

  private async reconcile(key: string): Promise<void | { requeueAfterMs: number }> {
    const ref = refFromKey(key);
    const cached = this.o.bindings.get(ref.kind)?.cache.get(key);
    const annotations = this.policyAnnotationsOf(key);
    if (!cached || !annotations) {
      this.holdingSince.delete(key);
      return;
    }
    const binding = { ...cached.value, status: this.bindingStatus.get(ref.kind)?.cache.get(key)?.value.status } as unknown as ResourceBinding;
    const now = this.o.clock.now();
    const d = decideFailBack({ binding, policyAnnotations: annotations, clusters: this.clusterViews(), now, holdingSince: this.holdingSince.get(key) });
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
        return needsTrigger(spec.rescheduleTriggeredAt, at) ? { ...cur, spec: { ...spec, rescheduleTriggeredAt: at } } : undefined;
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
        data: { fromGroup: d.fromGroup, toGroup: d.toGroup, rescheduleTriggeredAt: at, holdingSince: d.holdingSince, kubeEvent: { type: 'Normal', reason: 'FailBackTriggered', message } },
      }),
    );
  }
}
