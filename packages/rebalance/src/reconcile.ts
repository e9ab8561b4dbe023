import { formatTime } from '@flotilla/api';
import { bindingMatchesWorkload, bindingRefOf } from './binding-ref.js';
import { RebalanceInputError } from './errors.js';
import { foldRebalancerStatus } from './evolve.js';
import type { RebalanceEvent, TriggeredWorkload } from './events.js';
import { syncObservedWorkloads } from './observed-workloads.js';
import { ttlOutcome } from './ttl.js';
import type {
  BindingLookup,
  BindingRef,
  ObservedWorkload,
  WorkloadRebalancer,
  WorkloadRebalancerStatus,
  WorkloadReference,
} from './types.js';

export interface ReconcileInput {
  /** As stored: metadata (creationTimestamp, generation), spec, and status as the status writer last folded it. */
  rebalancer: WorkloadRebalancer;
  /** The binding of a workload; asked only for workloads without a Successful result. */
  lookup: (workload: WorkloadReference, binding: BindingRef) => BindingLookup;
  /** What spec.workloadSelectors select now; read only when the spec is observed anew (a snapshot). */
  selected?: readonly WorkloadReference[];
  now: Date;
}

/** One compare-and-set on a binding: set spec.rescheduleTriggeredAt, if it still is unset or earlier. */
export interface BindingWrite {
  workload: WorkloadReference;
  binding: BindingRef;
  /** The binding's resourceVersion as read. */
  resourceVersion?: string;
  rescheduleTriggeredAt: string;
}

export interface RebalanceDecision {
  /** The rebalancer's domain events, in the order the status writer folds them. */
  events: RebalanceEvent[];
  /** `rebalancer.status` with the events folded in: what the status writer will store. */
  status: WorkloadRebalancerStatus | undefined;
  bindingWrites: BindingWrite[];
  /** Workloads whose lookup failed: still pending, to retry with backoff (the TTL waits for them). */
  retry: Array<{ workload: WorkloadReference; error: string }>;
  /** When to look again for the TTL; null for no time-based requeue. */
  requeueAfterMs: number | null;
  /** The TTL has run out: delete the rebalancer (at the resourceVersion read, so a concurrent edit cancels it). */
  delete: boolean;
}

/** Whether a binding's trigger time is unset or earlier than `at` (Karmada's needTriggerReschedule). */
export function needsTrigger(current: string | undefined, at: string): boolean {
  return current === undefined || Date.parse(current) < Date.parse(at);
}

/**
 * Karmada's WorkloadRebalancer reconcile as a pure decision (pkg/controllers/workloadrebalancer):
 *
 * 1. observe the spec anew when its generation moved: rebuild the observed list (syncObservedWorkloads);
 * 2. for each workload without a result, in sorted order: no binding -> Failed / ReferencedBindingNotFound; a
 *    binding -> Successful, with a write of the rebalancer's creationTimestamp into spec.rescheduleTriggeredAt when
 *    that is unset or earlier; a failed lookup -> left pending for a retry. Unlike Karmada, a Failed workload is
 *    looked up again and becomes Successful once its binding exists;
 * 3. finishTime = now when the status changed and nothing is pending (also when every workload has a result and no
 *    finishTime was ever written, which Karmada would leave without one);
 * 4. the TTL, once nothing is pending.
 */
export function reconcileRebalancer(input: ReconcileInput): RebalanceDecision {
  const { rebalancer, now } = input;
  const createdAt = rebalancer.metadata.creationTimestamp;
  if (!createdAt || Number.isNaN(Date.parse(createdAt)))
    throw new RebalanceInputError('metadata.creationTimestamp', 'Required value: the time written into the bindings');
  const generation = rebalancer.metadata.generation ?? 1;
  const before = rebalancer.status;
  const events: RebalanceEvent[] = [];

  // 1. the observed list
  let observed = (before?.observedWorkloads ?? []) as ObservedWorkload[];
  if (before?.observedGeneration !== generation) {
    const sync = syncObservedWorkloads(observed, [...(rebalancer.spec?.workloads ?? []), ...(input.selected ?? [])]);
    observed = sync.observed;
    events.push({
      type: 'RebalanceObserved',
      data: { observedGeneration: generation, added: sync.added, dropped: sync.dropped },
    });
  }

  // 2. the triggers
  const triggered: TriggeredWorkload[] = [];
  const notFound: Array<{ workload: WorkloadReference; binding: BindingRef }> = [];
  const retry: RebalanceDecision['retry'] = [];
  const bindingWrites: BindingWrite[] = [];
  for (const item of observed) {
    if (item.result === 'Successful') continue;
    const ref = bindingRefOf(item.workload);
    const found = input.lookup(item.workload, ref);
    if ('error' in found) {
      if (item.result === undefined) retry.push({ workload: item.workload, error: found.error });
      continue;
    }
    if ('notFound' in found || !bindingMatchesWorkload(found.found, item.workload)) {
      if (item.result !== 'Failed') notFound.push({ workload: item.workload, binding: ref });
      continue;
    }
    const b = found.found;
    const write = needsTrigger(b.spec.rescheduleTriggeredAt, createdAt);
    if (write)
      bindingWrites.push({
        workload: item.workload,
        binding: ref,
        ...(b.metadata.resourceVersion ? { resourceVersion: b.metadata.resourceVersion } : {}),
        rescheduleTriggeredAt: createdAt,
      });
    triggered.push({
      workload: item.workload,
      binding: ref,
      rescheduleTriggeredAt: write ? createdAt : b.spec.rescheduleTriggeredAt!,
      written: write,
      ...(b.spec.clusters ? { clustersBefore: b.spec.clusters } : {}),
    });
  }
  if (triggered.length) {
    const n = triggered.length;
    events.push({
      type: 'RebalanceTriggered',
      data: {
        workloads: triggered,
        kubeEvent: {
          type: 'Normal',
          reason: 'RebalanceTriggered',
          message: `triggered a Fresh rescheduling of ${n} workload${n === 1 ? '' : 's'}`,
        },
      },
    });
  }
  if (notFound.length) {
    const names = notFound
      .slice(0, 5)
      .map((w) => `${w.workload.kind} ${w.workload.namespace ? `${w.workload.namespace}/` : ''}${w.workload.name}`);
    const more = notFound.length > names.length ? ` and ${notFound.length - names.length} more` : '';
    events.push({
      type: 'RebalanceBindingNotFound',
      data: {
        workloads: notFound,
        kubeEvent: {
          type: 'Warning',
          reason: 'ReferencedBindingNotFound',
          message: `no binding for ${names.join(', ')}${more}`,
        },
      },
    });
  }

  // 3. finishTime
  let status = foldRebalancerStatus(before, events);
  const items = (status?.observedWorkloads ?? []) as ObservedWorkload[];
  const allHaveResults = items.every((o) => o.result !== undefined);
  if (retry.length === 0 && allHaveResults && (events.length > 0 || !status?.finishTime)) {
    const successful = items.filter((o) => o.result === 'Successful').length;
    const failed = items.length - successful;
    const finished: RebalanceEvent = {
      type: 'RebalanceFinished',
      data: {
        finishTime: formatTime(now),
        successful,
        failed,
        kubeEvent: {
          type: failed ? 'Warning' : 'Normal',
          reason: 'RebalanceFinished',
          message: `${successful} workload${successful === 1 ? '' : 's'} rescheduled, ${failed} failed`,
        },
      },
    };
    events.push(finished);
    status = foldRebalancerStatus(status, [finished]);
  }

  // 4. the TTL
  const ttl = retry.length
    ? { delete: false as const, requeueAfterMs: null }
    : ttlOutcome(rebalancer.spec?.ttlSecondsAfterFinished, status?.finishTime, now);
  return {
    events,
    status,
    bindingWrites,
    retry,
    requeueAfterMs: ttl.delete ? null : ttl.requeueAfterMs,
    delete: ttl.delete,
  };
}
