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
import {
  decideFailBack,
  FAIL_BACK_BUDGET_DEFAULTS,
  failBackSettings,
  needsTrigger,
  planFailBacks,
  WorkloadEventTypes,
  type FailBackBudget,
  type FailBackCandidate,
  type FailBackHold,
  type FailBackPolicy,
  type FailBackStatus,
} from '@flotilla/rebalance';
import { policyClaim, type Cluster, type ResourceBinding } from '@flotilla/scheduling';
import { FAIL_BACK_ANNOTATION } from '@flotilla/rebalance';
import type { FailoverBehavior, StatusOfKind } from '@flotilla/api';
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
  type ObjectRef,
  type ObjectStore,
  type StatusRecord,
  type StoredObject,
} from '@flotilla/store';
import type { Registry } from 'prom-client';
import { CONTROLLER_NAME } from './cloud-events.js';

const BINDING_KINDS = ['ResourceBinding', 'ClusterResourceBinding'] as const;
type BindingKind = (typeof BINDING_KINDS)[number];
/** A policy as fail-back keeps it: identity, annotations and `spec.failover.failback` (FAIL_BACK_FIELDS). */
type PolicyAnnotations = Pick<StoredObject, 'apiVersion' | 'kind' | 'metadata'> & {
  failback?: FailoverBehavior['failback'];
};

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
  /** The fleet's fail-backs at most per period; default FAIL_BACK_BUDGET_DEFAULTS (10 a minute). */
  budget?: FailBackBudget;
  registry?: Registry;
  failureEvents?: FailureEvents;
}

/** Keeps a policy's identity, annotations and `spec.failover.failback`: its fail-back is all this reads of it. */
const ANNOTATIONS_ONLY = {
  name: 'fail-back-policy-fields',
  project: (p: StoredObject): PolicyAnnotations => {
    const failback = (p.spec as { failover?: FailoverBehavior } | undefined)?.failover?.failback;
    return {
      apiVersion: p.apiVersion,
      kind: p.kind,
      metadata: { name: p.metadata.name, namespace: p.metadata.namespace, annotations: p.metadata.annotations },
      ...(failback ? { failback } : {}),
    };
  },
};

/** A policy asks for fail-back, by karmada#7441's field or by the annotation (valid or not: decideFailBack says). */
const optsIn = (p: PolicyAnnotations | undefined): boolean =>
  p?.failback ? p.failback.enabled === true : !!p?.metadata.annotations?.[FAIL_BACK_ANNOTATION];

/** The `controller` label of fail-back's metrics. */
export const FAIL_BACK_CONTROLLER_NAME = Controllers.failBack;

/**
 * Opt-in fail-back (decideFailBack): bindings whose claiming policy asks for it (`spec.failover.failback`, or the
 * `flotilla.io/fail-back-after` annotation) are watched, with the clusters; once an earlier affinity group has been
 * able to hold one for the period, and the fleet's budget has room (planFailBacks: at most `budget.max` a period,
 * the oldest hold first), its spec.rescheduleTriggeredAt is set to now (one compare-and-set) and a
 * FailBackTriggered event recorded on it.
 *
 * The clock is in the store, not in memory: when a hold starts, one FailBackHoldStarted event (its statusPatch
 * folded into the binding's `status.failBack`), when it breaks one FailBackHoldEnded; nothing per tick, and nothing
 * for a binding that never failed over. A new leader reads the hold from the binding's status and fails back at the
 * original deadline. Until the status writer folds a record this leader keeps it in memory (`unfolded`); the
 * budget counts the bindings' `status.lastFailBackTime` and this leader's own triggers not yet folded.
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
  /** Holds this leader recorded that the status may not show yet. */
  private readonly unfolded = new Map<string, FailBackHold>();
  /** Fail-backs this leader triggered (binding key -> time), until the status shows them; reserved before the write. */
  private readonly triggered = new Map<string, { at: string; policy: string }>();
  /** Every binding whose hold runs (waiting or ready), for the budget's plan. */
  private readonly holds = new Map<string, FailBackCandidate>();
  private readonly budget: FailBackBudget;

  constructor(private readonly o: FailBackOptions) {
    this.budget = o.budget ?? FAIL_BACK_BUDGET_DEFAULTS;
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
    const optedIn = [...this.policies.values(), ...this.clusterPolicies.values()].some(optsIn);
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
    this.unfolded.clear();
    this.triggered.clear();
    this.holds.clear();
  }

  /** A binding (or its status) changed: check it, if its policy opted in or its status records a hold. */
  bindingChanged(key: string): void {
    if (this.watching && this.isCandidate(key)) this.controller.enqueue(key);
  }

  /** Every opted-in binding, in the background lane (a cluster or policy changed, or the resync). */
  sweep(): void {
    this.controller.enqueueAll();
  }

  private *candidates(): Generator<string> {
    if (!this.watching) return;
    for (const inf of this.o.bindings.values())
      for (const key of inf.cache.keys()) if (this.isCandidate(key)) yield key;
  }

  private isCandidate(key: string): boolean {
    return this.policyOf(key) !== undefined || this.statusOf(key)?.failBack !== undefined;
  }

  /** The claiming policy (its key, and what fail-back reads of it) when it opted in to fail-back. */
  private policyOf(bindingKey: string): { key: string; policy: FailBackPolicy } | undefined {
    const ref = refFromKey(bindingKey);
    const b = this.o.bindings.get(ref.kind)?.cache.get(bindingKey)?.value;
    const claim = policyClaim(b?.metadata.annotations);
    if (!claim) return undefined;
    const inf = claim.kind === 'PropagationPolicy' ? this.policies : this.clusterPolicies;
    const pref = { kind: claim.kind, namespace: claim.namespace, name: claim.name };
    const p = inf.get(pref);
    if (!optsIn(p)) return undefined;
    return { key: objectKey(pref), policy: { annotations: p!.metadata.annotations, failback: p!.failback } };
  }

  private statusOf(key: string): (FailBackStatus & { lastScheduledTime?: string }) | undefined {
    const inf = this.watching?.bindingStatus.get(refFromKey(key).kind);
    return inf?.cache.get(key)?.value.status as (FailBackStatus & { lastScheduledTime?: string }) | undefined;
  }

  private clusterViews(w: NonNullable<FailBack['watching']>): Cluster[] {
    return allWithStatus(w.clusters, w.clusterStatus);
  }

  private async reconcile(key: string): Promise<ReconcileResult> {
    const ref = refFromKey(key);
    const cached = this.o.bindings.get(ref.kind)?.cache.get(key);
    const claimed = this.policyOf(key);
    const w = this.watching;
    if (!w) return;
    // Not before the binding statuses and the clusters are listed: decided on half of them, a new leader saw no hold
    // recorded (and started one afresh) or no cluster of the earlier group (and ended the recorded one).
    await w.ready;
    if (this.watching !== w) return;
    if (!cached || !hasSpec(cached.value)) {
      this.forget(key);
      return;
    }
    const binding: ResourceBinding = withStatus(cached.value, key, w.bindingStatus.get(ref.kind));
    const now = this.o.clock.now();
    const d = decideFailBack({
      binding,
      policy: claimed?.policy,
      clusters: this.clusterViews(w),
      now,
      unfolded: this.unfolded.get(key),
    });
    if (d.action === 'none') {
      const hold = this.unfolded.get(key) ?? (binding.status as FailBackStatus | undefined)?.failBack;
      this.forget(key);
      if (d.clearHold && hold)
        await this.publishHold(WorkloadEventTypes.FailBackHoldEnded, ref, binding, hold, now, { reason: d.reason });
      return;
    }
    // 1. A hold that starts is recorded once: a new leader goes on with its clock.
    if (d.recordHold) {
      this.unfolded.set(key, d.hold);
      await this.publishHold(WorkloadEventTypes.FailBackHoldStarted, ref, binding, d.hold, now);
    }
    this.holds.set(key, { key, policy: claimed!.key, holdingSince: d.hold.holdingSince, readyAt: d.readyAt });
    if (d.action === 'wait') return { requeueAfterMs: d.recheckAfterMs };

    // 2. Its window has passed: the fleet's budget says when it goes, the oldest hold first.
    const mine = this.plan(now).find((p) => p.key === key);
    if (!mine?.moveAt) return { requeueAfterMs: MAX_CONCURRENT_RECHECK_MS };
    const wait = Date.parse(mine.moveAt) - now.getTime();
    if (wait > 0) return { requeueAfterMs: wait };

    // 3. Its turn: the slot is taken before the write, so a reconcile of another binding meanwhile plans without it.
    const at = d.rescheduleTriggeredAt;
    this.triggered.set(key, { at, policy: claimed!.key });
    this.holds.delete(key);
    const written = await this.o.store
      .update(
        ref,
        (cur) => {
          const spec = cur.spec as ResourceBinding['spec'];
          return needsTrigger(spec.rescheduleTriggeredAt, at)
            ? { ...cur, spec: { ...spec, rescheduleTriggeredAt: at } }
            : undefined;
        },
        { cached },
      )
      .catch((err: unknown) => {
        this.triggered.delete(key);
        throw err;
      });
    this.unfolded.delete(key);
    if (!written) {
      this.triggered.delete(key);
      return;
    }
    const { fromGroup, toGroup, holdingSince } = d.hold;
    const period = failBackSettings(claimed!.policy);
    const message = `group ${toGroup} could hold the workload again for ${period.enabled ? period.period : '?'}: Fresh rescheduling from group ${fromGroup}`;
    this.o.logger.info({ binding: objectKey(ref), from: fromGroup, to: toGroup }, 'fail-back triggered');
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
          fromGroup,
          toGroup,
          rescheduleTriggeredAt: at,
          holdingSince,
          kubeEvent: { type: 'Normal', reason: 'FailBackTriggered', message },
          statusPatch: { failBack: null, lastFailBackTime: at },
        } satisfies FailBackTriggeredData,
      }),
    );
  }

  private forget(key: string): void {
    this.unfolded.delete(key);
    this.holds.delete(key);
  }

  /**
   * The budget's plan over every running hold: the fleet's recent fail-backs are the bindings' `lastFailBackTime`
   * and this leader's own not yet folded; a policy's in-flight ones are those triggered and not yet rescheduled.
   */
  private plan(now: Date) {
    const recent: string[] = [];
    const inFlight = new Map<string, number>();
    const maxConcurrent = new Map<string, number>();
    const since = now.getTime() - this.budget.periodMs;
    for (const key of this.candidates()) {
      const s = this.statusOf(key);
      const mine = this.triggered.get(key);
      if (mine && s?.lastFailBackTime === mine.at) this.triggered.delete(key); // folded: the status says it now
      const last = mine?.at ?? s?.lastFailBackTime;
      if (!last) continue;
      if (Date.parse(last) > since) recent.push(last);
      const claimed = this.policyOf(key);
      if (claimed && (!s?.lastScheduledTime || Date.parse(s.lastScheduledTime) < Date.parse(last)))
        inFlight.set(claimed.key, (inFlight.get(claimed.key) ?? 0) + 1);
    }
    for (const c of this.holds.values()) {
      const settings = failBackSettings(this.policyOf(c.key)?.policy);
      if (settings.enabled && settings.maxConcurrent !== undefined) maxConcurrent.set(c.policy, settings.maxConcurrent);
    }
    return planFailBacks({
      candidates: [...this.holds.values()],
      recentTriggers: recent,
      inFlight,
      maxConcurrent,
      budget: this.budget,
      now,
    });
  }

  /** A hold's start or end, recorded on the binding: its statusPatch is the clock's record in the binding's status. */
  private async publishHold(
    type: typeof WorkloadEventTypes.FailBackHoldStarted | typeof WorkloadEventTypes.FailBackHoldEnded,
    ref: ObjectRef,
    binding: ResourceBinding,
    hold: FailBackHold,
    now: Date,
    extra: Record<string, unknown> = {},
  ): Promise<void> {
    const started = type === WorkloadEventTypes.FailBackHoldStarted;
    await this.o.publish(
      cloudEvent({
        // One record per hold and way, whichever replica or retry sends it.
        id: `${binding.metadata.uid ?? objectKey(ref)}/${type}/${hold.holdingSince}`,
        source: CONTROLLER_NAME,
        type,
        kind: ref.kind,
        namespace: ref.namespace,
        name: ref.name,
        time: now,
        data: { ...hold, ...extra, statusPatch: { failBack: started ? hold : null } },
      }),
    );
  }
}

/** A binding whose policy's maxConcurrent fail-backs are under way looks again this soon (they end at rescheduling). */
const MAX_CONCURRENT_RECHECK_MS = 2000;
