import { isDeepStrictEqual } from 'node:util';
import { applyStatusPatch } from '@flotilla/api/core';
import { scheduledCondition } from './binding-status.js';
import {
  APPLIED_PLACEMENT_ANNOTATION,
  appliedPlacement,
  evictionRecheckMs,
  scheduleTrigger,
  type ScheduleTrigger,
} from './reschedule.js';
import { scheduleBinding, type ScheduleResult } from './schedule.js';
import type { BindingObject, Cluster, ResourceBinding, ResourceBindingStatus, TargetCluster } from './types.js';

// The affinity scheduler's decision on one binding, pure: the service runs it on what its informers hold, and
// what-if on a file, so both decide alike. Announcing a decision (decisionEvent) is the service's.

export type BindingDecision = ScheduledDecision | KeptDecision;

interface DecisionBase {
  /** Whether this decision must be announced (a new result, a new generation, a Fresh run, or a failure). */
  announce: boolean;
  /**
   * What the decision followed: the last success's time and whether a failure came after it. Part of the event's
   * identity, so that an outcome repeated after a different one (success, failure, recovery at one generation) is
   * news, while the same decision taken again (after a crash or a hand-over) is not.
   */
  basis: string;
  /** Decide again after this long even if nothing changes: a toleration's seconds run out then. */
  recheckAfterMs?: number;
}

/** Something asked for scheduling (Karmada's doScheduleBinding), and this is the outcome. */
export interface ScheduledDecision extends DecisionBase {
  kind: 'Scheduled';
  trigger: ScheduleTrigger;
  result: ScheduleResult;
  /** The spec.clusters to write, when they differ from the stored ones. */
  clusters?: TargetCluster[];
  /** The applied-placement annotation to write with the result, when it differs from the stored one. */
  appliedPlacement?: string;
}

/** Nothing asked for scheduling: the stored spec.clusters stand. */
export interface KeptDecision extends DecisionBase {
  kind: 'Kept';
  kept: TargetCluster[];
  affinityName?: string;
  lastScheduledTime?: string;
  /** The last outcome known was a failure, which no longer holds (its cause went away without a new schedule). */
  recovered: boolean;
}

/**
 * Level-triggered scheduling of one binding: decide from current state and compare with what is stored.
 * `observed` is what this scheduler last announced for the binding (its status may not have caught up yet).
 */
export function decideBinding(
  binding: ResourceBinding,
  clusters: readonly Cluster[],
  now: Date,
  observed?: ObservedSchedule,
): BindingDecision {
  const view = { ...binding, status: effectiveStatus(binding.status, observed) };
  const trigger = scheduleTrigger(view, clusters, now);
  const last = lastOutcome(binding.status, observed);
  const basis = `${view.status?.lastScheduledTime ?? ''}/${last.failed ? 'failed' : 'ok'}`;
  const decision = { ...(trigger ? scheduled(view, clusters, now, trigger, observed, last) : kept(view, last)), basis };
  const recheckAfterMs = evictionRecheckMs(binding, clusters, now);
  return recheckAfterMs === undefined ? decision : { ...decision, recheckAfterMs };
}

/** A failed binding is tried again this often, whatever else happens meanwhile. */
const FAILED_RETRY_MS = 10_000;
/** Timers may fire a little early; a recheck due at an instant runs just after it. */
const TIMER_SLACK_MS = 50;

/** When to decide again if no news comes first: a failure is retried; a toleration running out is looked at. */
export function revisitAfterMs(d: BindingDecision): number | undefined {
  const failed = d.kind === 'Scheduled' && !d.result.ok;
  const next = Math.min(
    failed ? FAILED_RETRY_MS : Infinity,
    d.recheckAfterMs === undefined ? Infinity : d.recheckAfterMs + TIMER_SLACK_MS,
  );
  return Number.isFinite(next) ? next : undefined;
}

function scheduled(
  binding: ResourceBinding,
  clusters: readonly Cluster[],
  now: Date,
  trigger: ScheduleTrigger,
  observed: ObservedSchedule | undefined,
  last: Outcome,
): Omit<ScheduledDecision, 'basis'> {
  const result = scheduleBinding({ binding, clusters, now });
  const generation = binding.metadata.generation ?? 0;
  if (!result.ok) {
    // Nothing is written: the previous assignment stays, and so does the reason to schedule, which retries it.
    const changedFailure = observed?.failureMessage !== result.message || observed.generation !== generation;
    return { kind: 'Scheduled', trigger, result, announce: changedFailure };
  }
  const differs = !isDeepStrictEqual(normalise(binding.spec.clusters ?? []), normalise(result.clusters));
  const applied = appliedPlacement(binding.spec.placement);
  const recordApplied = binding.metadata.annotations?.[APPLIED_PLACEMENT_ANNOTATION] !== applied;
  const movedGroup = result.affinityName !== binding.status?.schedulerObservingAffinityName;
  const announce = differs || movedGroup || result.mode === 'Fresh' || last.generation < generation || last.failed;
  return {
    kind: 'Scheduled',
    trigger,
    result,
    ...(differs ? { clusters: result.clusters } : {}),
    ...(recordApplied ? { appliedPlacement: applied } : {}),
    announce,
  };
}

// Announced when this generation is not known to be scheduled: a template change moved the generation, or a
// standby finds a result written by a leader that died before announcing it (the same event id then).
function kept(binding: ResourceBinding, last: Outcome): Omit<KeptDecision, 'basis'> {
  const generation = binding.metadata.generation ?? 0;
  const affinityName = observedGroup(binding);
  return {
    kind: 'Kept',
    kept: binding.spec.clusters ?? [],
    ...(affinityName !== undefined ? { affinityName } : {}),
    ...(binding.status?.lastScheduledTime ? { lastScheduledTime: binding.status.lastScheduledTime } : {}),
    recovered: last.failed,
    announce: last.generation < generation || last.failed,
  };
}

interface Outcome {
  generation: number;
  failed: boolean;
}

/** The newest outcome known: the folded status, or this scheduler's own announcement if at least as new. */
function lastOutcome(status: ResourceBindingStatus | undefined, observed: ObservedSchedule | undefined): Outcome {
  const folded = {
    generation: status?.schedulerObservedGeneration ?? -1,
    failed: status?.conditions?.find((c) => c.type === 'Scheduled')?.status === 'False',
  };
  if (!observed || observed.generation < folded.generation) return folded;
  return { generation: observed.generation, failed: observed.failureMessage !== undefined };
}

// A single clusterAffinity observes no group (as scheduleBinding reports it).
function observedGroup(binding: ResourceBinding): string | undefined {
  const p = binding.spec.placement;
  return !p?.clusterAffinity && p?.clusterAffinities?.length
    ? binding.status?.schedulerObservingAffinityName
    : undefined;
}

/** What the scheduler announced last, kept in memory to bridge the time until the status writer folds it. */
export interface ObservedSchedule {
  generation: number;
  affinityName?: string;
  lastScheduledTime?: string;
  failureMessage?: string;
}

/** The memory after announcing `d` at `generation`. A failure keeps the group and time of the last success. */
export function observedAfter(
  previous: ObservedSchedule | undefined,
  d: BindingDecision,
  generation: number,
): ObservedSchedule {
  if (d.kind === 'Kept') {
    return {
      generation,
      ...(d.affinityName !== undefined ? { affinityName: d.affinityName } : {}),
      ...(d.lastScheduledTime ? { lastScheduledTime: d.lastScheduledTime } : {}),
    };
  }
  const r = d.result;
  if (!r.ok) return { ...previous, generation, failureMessage: r.message };
  return {
    generation,
    ...(r.affinityName !== undefined ? { affinityName: r.affinityName } : {}),
    lastScheduledTime: r.lastScheduledTime,
  };
}

/**
 * What a decision reads of a binding's status (its last outcome, lastScheduledTime, the observed group), with this
 * scheduler's own announcement bridging the time until the status writer folds it: the same before and after that
 * fold. A decision's other inputs are the binding's spec and the clusters.
 */
export function statusBasis(status: ResourceBindingStatus | undefined, observed: ObservedSchedule | undefined): string {
  const view = effectiveStatus(status, observed);
  const last = lastOutcome(status, observed);
  return JSON.stringify([
    last.generation,
    last.failed,
    view?.lastScheduledTime ?? null,
    view?.schedulerObservingAffinityName ?? null,
  ]);
}

function effectiveStatus(
  status: ResourceBindingStatus | undefined,
  observed: ObservedSchedule | undefined,
): ResourceBindingStatus | undefined {
  if (!observed?.lastScheduledTime) return status;
  // Generations order decisions; times have whole-second resolution and cannot tell two decisions in one second apart.
  const folded = status?.schedulerObservedGeneration;
  if (folded !== undefined && folded >= observed.generation) return status;
  const { schedulerObservingAffinityName: _stale, ...rest } = status ?? {};
  return {
    ...rest,
    lastScheduledTime: observed.lastScheduledTime,
    ...(observed.affinityName !== undefined ? { schedulerObservingAffinityName: observed.affinityName } : {}),
  };
}

const normalise = (c: ReadonlyArray<{ name: string; replicas?: number }>) =>
  [...c].map((x) => ({ name: x.name, replicas: x.replicas ?? 0 })).sort((a, b) => a.name.localeCompare(b.name));

/**
 * What the decision folds into status. A failure carries only the Scheduled condition and the generation: the
 * observed group and lastScheduledTime stay as the last success left them (copying the stored status here would
 * write back an older group than one announced meanwhile). null removes a field: a single clusterAffinity has no
 * observed group.
 */
export function statusPatchFor(
  d: BindingDecision,
  status: ResourceBindingStatus | undefined,
  generation: number,
  now: Date,
): Record<string, unknown> {
  const outcome = d.kind === 'Kept' ? ({ ok: true } as const) : d.result;
  const patch: Record<string, unknown> = {
    conditions: [scheduledCondition(outcome, status, now)],
    schedulerObservedGeneration: generation,
  };
  if (d.kind === 'Scheduled' && d.result.ok) {
    patch.lastScheduledTime = d.result.lastScheduledTime;
    patch.schedulerObservingAffinityName = d.result.affinityName ?? null;
  }
  return patch;
}

/**
 * The status once the status writer has folded the decision's patch (applyStatusPatch, as its patchReducer does,
 * at the time of the decision's event): what the next decision reads back.
 */
export function statusAfter(
  d: BindingDecision,
  status: ResourceBindingStatus | undefined,
  generation: number,
  now: Date,
): ResourceBindingStatus {
  return applyStatusPatch(
    status as Record<string, unknown> | undefined,
    statusPatchFor(d, status, generation, now),
    now.toISOString(),
  ) as ResourceBindingStatus;
}

/** How a scheduled result goes into the binding: spec.clusters and the applied-placement record, where they changed. */
export function resultWrite(d: BindingDecision): (<T extends BindingObject>(cur: T) => T) | undefined {
  if (d.kind !== 'Scheduled' || (d.clusters === undefined && d.appliedPlacement === undefined)) return undefined;
  const { clusters, appliedPlacement } = d;
  return <T extends BindingObject>(cur: T): T => ({
    ...cur,
    metadata:
      appliedPlacement === undefined
        ? cur.metadata
        : {
            ...cur.metadata,
            annotations: { ...cur.metadata.annotations, [APPLIED_PLACEMENT_ANNOTATION]: appliedPlacement },
          },
    spec: clusters === undefined ? cur.spec : { ...(cur.spec as object), clusters },
  });
}
