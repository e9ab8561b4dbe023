import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { cloudEvent, EventTypes, type CloudEvent } from '@flotilla/bus';
import { bindingStatusFor, scheduleBinding, type Cluster, type ResourceBinding, type ResourceBindingStatus, type ScheduleResult } from '@flotilla/scheduling';

export interface BindingDecision {
  result: ScheduleResult;
  /** The spec.clusters to write, when they differ from the stored ones. */
  clusters?: ResourceBinding['spec']['clusters'];
  /** Whether this decision must be announced (a new result, a new generation, a Fresh run, or a failure). */
  announce: boolean;
}

/**
 * Level-triggered scheduling of one binding: schedule from current state and compare with what is stored.
 * `observed` is what this scheduler last announced for the binding (its status may not have caught up yet).
 */
export function decideBinding(binding: ResourceBinding, clusters: readonly Cluster[], now: Date, observed?: ObservedSchedule): BindingDecision {
  const status = effectiveStatus(binding.status, observed);
  const result = scheduleBinding({ binding: { ...binding, status }, clusters, now });
  const generation = binding.metadata.generation ?? 0;
  if (!result.ok) {
    const changedFailure = observed?.failureMessage !== result.message || observed.generation !== generation;
    return { result, announce: changedFailure };
  }
  const current = binding.spec.clusters ?? [];
  const differs = !isDeepStrictEqual(normalise(current), normalise(result.clusters));
  const announce = differs || result.mode === 'Fresh' || observed?.generation !== generation || observed.failureMessage !== undefined;
  return { result, ...(differs ? { clusters: result.clusters } : {}), announce };
}

/** What the scheduler announced last, kept in memory to bridge the time until the status writer folds it. */
export interface ObservedSchedule {
  generation: number;
  affinityName?: string;
  lastScheduledTime?: string;
  failureMessage?: string;
}

function effectiveStatus(status: ResourceBindingStatus | undefined, observed: ObservedSchedule | undefined): ResourceBindingStatus | undefined {
  if (!observed?.lastScheduledTime) return status;
  // Generations order decisions; times have whole-second resolution and cannot tell two decisions in one second apart.
  const folded = status?.schedulerObservedGeneration;
  if (folded !== undefined && folded >= observed.generation) return status;
  return {
    ...status,
    lastScheduledTime: observed.lastScheduledTime,
    ...(observed.affinityName !== undefined ? { schedulerObservingAffinityName: observed.affinityName } : {}),
  };
}

const normalise = (c: ReadonlyArray<{ name: string; replicas?: number }>) =>
  [...c].map((x) => ({ name: x.name, replicas: x.replicas ?? 0 })).sort((a, b) => a.name.localeCompare(b.name));

/**
 * The domain event of a decision. Its id is derived from the binding's uid, generation and the result, so a
 * replica that repeats the same decision (after a crash, or a hand-over) publishes it once.
 */
export function decisionEvent(binding: ResourceBinding, d: BindingDecision, generation: number, now: Date): CloudEvent {
  const r = d.result;
  const statusPatch = { ...bindingStatusFor(r, binding.status, now), schedulerObservedGeneration: generation };
  const digest = createHash('sha256')
    .update(JSON.stringify(r.ok ? [r.clusters, r.affinityName, r.mode, r.mode === 'Fresh' ? binding.spec.rescheduleTriggeredAt : ''] : [r.reason, r.message]))
    .digest('hex')
    .slice(0, 16);
  const type = r.ok ? EventTypes.BindingScheduled : EventTypes.BindingScheduleFailed;
  const groups = r.attempts.map((a) => ({ affinityName: a.affinityName, ok: a.ok, message: a.message, filtered: a.filtered }));
  const summary = r.ok
    ? `${r.mode} scheduling${r.affinityName ? ` with group ${r.affinityName}` : ''}: ${r.clusters.map((c) => (c.replicas === undefined ? c.name : `${c.name}:${c.replicas}`)).join(', ') || 'no clusters'}`
    : r.message;
  return cloudEvent({
    id: `${binding.metadata.uid ?? binding.metadata.name}/${generation}/${type}/${digest}`,
    source: 'affinity-scheduler',
    type,
    kind: binding.kind ?? 'ResourceBinding',
    namespace: binding.metadata.namespace,
    name: binding.metadata.name ?? '',
    time: now,
    data: {
      ...(r.ok ? { clusters: r.clusters, affinityName: r.affinityName, mode: r.mode } : { reason: r.reason, keptClusters: r.keptClusters, mode: r.mode }),
      filtered: r.filtered,
      groups,
      statusPatch,
      kubeEvent: r.ok
        ? { type: 'Normal', reason: 'ScheduleBindingSucceed', message: summary }
        : { type: 'Warning', reason: 'ScheduleBindingFailed', message: summary },
    },
  });
}
