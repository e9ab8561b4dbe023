import { formatTime } from '@flotilla/api/core';
import type { Condition, ResourceBindingStatus } from './types.js';

/** Message of a successful Scheduled condition, as Karmada writes it. */
export const SCHEDULED_MESSAGE = 'Binding has been scheduled successfully.';

/** The outcome a Scheduled condition reports: a success, or a failure with Karmada's reason. */
export type ScheduledOutcome = { ok: true } | { ok: false; reason: string; message: string };

/** The Scheduled condition for an outcome; lastTransitionTime only moves when its status flips. */
export function scheduledCondition(
  outcome: ScheduledOutcome,
  previousStatus: ResourceBindingStatus | undefined,
  now: Date,
): Condition {
  const status = outcome.ok ? 'True' : 'False';
  const old = previousStatus?.conditions?.find((c) => c.type === 'Scheduled');
  return {
    type: 'Scheduled',
    status,
    reason: outcome.ok ? 'Success' : outcome.reason,
    message: outcome.ok ? SCHEDULED_MESSAGE : outcome.message,
    lastTransitionTime:
      old && old.status === status && old.lastTransitionTime ? old.lastTransitionTime : formatTime(now),
  };
}
