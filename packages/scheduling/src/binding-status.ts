import { formatTime, type ScheduleResult } from './schedule.js';
import type { Condition, ResourceBindingStatus } from './types.js';

/** Message of a successful Scheduled condition, as Karmada writes it. */
export const SCHEDULED_MESSAGE = 'Binding has been scheduled successfully.';

/**
 * The status the status writer stores after a scheduling decision: the Scheduled condition
 * (True/Success, or False with Karmada's reason), schedulerObservingAffinityName and
 * lastScheduledTime. Other conditions are kept; lastTransitionTime only moves when the
 * condition's status flips. A failure leaves the observed group and lastScheduledTime alone,
 * so a later attempt resumes where the last success was.
 */
export function bindingStatusFor(result: ScheduleResult, previousStatus: ResourceBindingStatus | undefined, now: Date): ResourceBindingStatus {
  const prev = previousStatus ?? {};
  const condition = scheduledCondition(result, prev, now);
  const conditions = [...(prev.conditions ?? []).filter((c) => c.type !== 'Scheduled'), condition];
  const out: ResourceBindingStatus = { ...prev, conditions };
  if (result.ok) {
    out.lastScheduledTime = result.lastScheduledTime;
    if (result.affinityName !== undefined) out.schedulerObservingAffinityName = result.affinityName;
    else delete out.schedulerObservingAffinityName;
  }
  return out;
}

/** The outcome a Scheduled condition reports: a success, or a failure with Karmada's reason. */
export type ScheduledOutcome = { ok: true } | { ok: false; reason: string; message: string };

/** The Scheduled condition for an outcome; lastTransitionTime only moves when its status flips. */
export function scheduledCondition(outcome: ScheduledOutcome, previousStatus: ResourceBindingStatus | undefined, now: Date): Condition {
  const status = outcome.ok ? 'True' : 'False';
  const old = previousStatus?.conditions?.find((c) => c.type === 'Scheduled');
  return {
    type: 'Scheduled',
    status,
    reason: outcome.ok ? 'Success' : outcome.reason,
    message: outcome.ok ? SCHEDULED_MESSAGE : outcome.message,
    lastTransitionTime: old && old.status === status && old.lastTransitionTime ? old.lastTransitionTime : formatTime(now),
  };
}
