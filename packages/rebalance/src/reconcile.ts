import { formatTime } from '@flotilla/api';
import { bindingKey, bindingMatchesWorkload, bindingRefOf } from './binding-ref.js';
import { RebalanceInputError } from './errors.js';
import { foldRebalancerStatus } from './evolve.js';
import type { RebalanceEvent, TriggeredWorkload } from './events.js';
import { syncObservedWorkloads } from './observed-workloads.js';
import { ttlOutcome } from './ttl.js';
import type {
  BindingLookup,
  BindingRef,
  BindingView,
  BindingWriteOutcome,
  ObservedWorkload,
  WorkloadRebalancer,
  WorkloadRebalancerStatus,
  WorkloadReference,
} from './types.js';

export interface PlanInput {
  /** As stored: metadata (creationTimestamp, generation), spec, and status as the status writer last folded it. */
  rebalancer: WorkloadRebalancer;
  /** The binding of a workload; asked only for workloads without a Successful result. */
  lookup: (workload: WorkloadReference, binding: BindingRef) => BindingLookup;
  /** What spec.workloadSelectors select now; read only when the spec is observed anew (a snapshot). */
  selected?: readonly WorkloadReference[];
}

export interface ReconcileInput extends PlanInput {
  /**
   * What became of the writes `planRebalance` asked for, by `bindingKey`. A workload is Successful only when its
   * binding carries the trigger: written now, or already there. A planned write without an outcome counts as failed.
   */
  writes: ReadonlyMap<string, BindingWriteOutcome>;
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
  /** Workloads whose lookup or write failed: still pending, to retry with backoff (the TTL waits for them). */
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

interface Observation {
  createdAt: string;
  generation: number;
  observed: ObservedWorkload[];
  /** The RebalanceObserved event, when the spec was observed anew. */
  event?: RebalanceEvent;
}

/** Step 1: the observed list, rebuilt from spec when its generation moved (syncObservedWorkloads). */
function observe(rebalancer: WorkloadRebalancer, selected: readonly WorkloadReference[] | undefined): Observation {
  const createdAt = rebalancer.metadata.creationTimestamp;
  if (!createdAt || Number.isNaN(Date.parse(createdAt)))
    throw new RebalanceInputError('metadata.creationTimestamp', 'Required value: the time written into the bindings');
  const generation = rebalancer.metadata.generation ?? 1;
  const before = rebalancer.status;
  const observed = (before?.observedWorkloads ?? []) as ObservedWorkload[];
  if (before?.observedGeneration === generation) return { createdAt, generation, observed };
  const sync = syncObservedWorkloads(observed, [...(rebalancer.spec?.workloads ?? []), ...(selected ?? [])]);
  return {
    createdAt,
    generation,
    observed: sync.observed,
    event: {
      type: 'RebalanceObserved',
      data: { observedGeneration: generation, added: sync.added, dropped: sync.dropped },
    },
  };
}

/** What one workload's binding says: nothing to do, retry, no binding, triggered already, or a write to make. */
type Verdict =
  | { kind: 'none' }
  | { kind: 'retry'; error: string }
  | { kind: 'notFound' }
  | { kind: 'triggered'; triggered: TriggeredWorkload }
  | { kind: 'write'; write: BindingWrite };

function verdictOf(item: ObservedWorkload, ref: BindingRef, found: BindingLookup, createdAt: string): Verdict {
  if ('error' in found) return item.result === undefined ? { kind: 'retry', error: found.error } : { kind: 'none' };
  if ('notFound' in found || !bindingMatchesWorkload(found.found, item.workload))
    return item.result !== 'Failed' ? { kind: 'notFound' } : { kind: 'none' };
  const b = found.found;
  if (needsTrigger(b.spec.rescheduleTriggeredAt, createdAt)) {
    const rv = b.metadata.resourceVersion;
    return {
      kind: 'write',
      write: {
        workload: item.workload,
        binding: ref,
        ...(rv ? { resourceVersion: rv } : {}),
        rescheduleTriggeredAt: createdAt,
      },
    };
  }
  return { kind: 'triggered', triggered: triggeredBy(item.workload, ref, b, false) };
}

function triggeredBy(
  workload: WorkloadReference,
  ref: BindingRef,
  b: BindingView,
  written: boolean,
): TriggeredWorkload {
  return {
    workload,
    binding: ref,
    rescheduleTriggeredAt: b.spec.rescheduleTriggeredAt!,
    written,
    ...(b.spec.clusters ? { clustersBefore: b.spec.clusters } : {}),
  };
}

/** The verdict once the write was tried: what the compare-and-set stored or found decides, never the plan. */
function afterWrite(
  item: ObservedWorkload,
  w: BindingWrite,
  outcome: BindingWriteOutcome | undefined,
  createdAt: string,
): Verdict {
  if (outcome === undefined) return verdictOf(item, w.binding, { error: 'the binding write was not made' }, createdAt);
  if ('written' in outcome)
    return { kind: 'triggered', triggered: triggeredBy(item.workload, w.binding, outcome.written, true) };
  if ('unchanged' in outcome) {
    const v = verdictOf(item, w.binding, { found: outcome.unchanged }, createdAt);
    // The store left a binding that still lacks the trigger: nothing was written, so it is tried again.
    return v.kind === 'write'
      ? verdictOf(item, w.binding, { error: 'the binding write changed nothing' }, createdAt)
      : v;
  }
  return verdictOf(item, w.binding, outcome, createdAt);
}

/** The verdict of each workload without a Successful result, in the observed order. */
function verdicts(
  input: PlanInput,
  o: Observation,
): Array<{ item: ObservedWorkload; ref: BindingRef; verdict: Verdict }> {
  return o.observed
    .filter((item) => item.result !== 'Successful')
    .map((item) => {
      const ref = bindingRefOf(item.workload);
      return { item, ref, verdict: verdictOf(item, ref, input.lookup(item.workload, ref), o.createdAt) };
    });
}

/** The bindings a pass reads: those of the workloads without a Successful result (before `planRebalance`). */
export function bindingsToRead(input: Pick<PlanInput, 'rebalancer' | 'selected'>): BindingRef[] {
  return observe(input.rebalancer, input.selected)
    .observed.filter((item) => item.result !== 'Successful')
    .map((item) => bindingRefOf(item.workload));
}

/**
 * The writes of a pass: for each workload without a result whose binding lacks the rebalancer's creationTimestamp
 * (unset or earlier in spec.rescheduleTriggeredAt), one compare-and-set. The caller makes them and hands what became
 * of each to `reconcileRebalancer`.
 */
export function planRebalance(input: PlanInput): BindingWrite[] {
  return verdicts(input, observe(input.rebalancer, input.selected)).flatMap(({ verdict }) =>
    verdict.kind === 'write' ? [verdict.write] : [],
  );
}

/**
 * Karmada's WorkloadRebalancer reconcile as a pure decision (pkg/controllers/workloadrebalancer), made once the
 * planned writes were tried:
 *
 * 1. observe the spec anew when its generation moved: rebuild the observed list (syncObservedWorkloads);
 * 2. for each workload without a result, in sorted order: no binding -> Failed / ReferencedBindingNotFound; a
 *    binding that carries the creationTimestamp in spec.rescheduleTriggeredAt (or a later time), or into which the
 *    write stored it -> Successful; a failed lookup or write -> left pending for a retry. Unlike Karmada, a Failed
 *    workload is looked up again and becomes Successful once its binding exists;
 * 3. finishTime = now when the status changed and nothing is pending (also when every workload has a result and no
 *    finishTime was ever written, which Karmada would leave without one);
 * 4. the TTL, once nothing is pending.
 */
export function reconcileRebalancer(input: ReconcileInput): RebalanceDecision {
  const { rebalancer, now } = input;
  const o = observe(rebalancer, input.selected);
  const events: RebalanceEvent[] = o.event ? [o.event] : [];

  // 2. the triggers, as the writes left them
  const triggered: TriggeredWorkload[] = [];
  const notFound: Array<{ workload: WorkloadReference; binding: BindingRef }> = [];
  const retry: RebalanceDecision['retry'] = [];
  for (const { item, ref, verdict } of verdicts(input, o)) {
    const v =
      verdict.kind === 'write'
        ? afterWrite(item, verdict.write, input.writes.get(bindingKey(ref)), o.createdAt)
        : verdict;
    if (v.kind === 'retry') retry.push({ workload: item.workload, error: v.error });
    else if (v.kind === 'notFound') notFound.push({ workload: item.workload, binding: ref });
    else if (v.kind === 'triggered') triggered.push(v.triggered);
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
  let status = foldRebalancerStatus(rebalancer.status, events);
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
    retry,
    requeueAfterMs: ttl.delete ? null : ttl.requeueAfterMs,
    delete: ttl.delete,
  };
}
