import { formatTime, parseGoDuration, type FailoverBehavior } from '@flotilla/api';
import { scheduleBinding, type Cluster, type ResourceBinding } from '@flotilla/scheduling';

/** On a (Cluster)PropagationPolicy: fail back to an earlier affinity group after it could hold the workload this long. */
export const FAIL_BACK_ANNOTATION = 'flotilla.io/fail-back-after';

/** The annotation's Go duration (`10m`, `1h30m`, `90s`) in milliseconds; undefined when it is not a positive one. */
export function parseFailBackPeriod(text: string | undefined): number | undefined {
  const ms = text === undefined ? undefined : parseGoDuration(text.trim());
  return ms !== undefined && ms > 0 ? ms : undefined;
}

/** What fail-back reads of the policy that claimed a binding. */
export interface FailBackPolicy {
  annotations?: Record<string, string>;
  /** karmada#7441's `spec.failover.failback`. */
  failback?: FailoverBehavior['failback'];
}

/** A policy's fail-back, as its spec (karmada#7441) or else its annotation asks for it. */
export type FailBackSettings =
  | { enabled: true; periodMs: number; period: string; maxConcurrent?: number }
  | { enabled: false; reason: 'NotEnabled' | 'InvalidPeriod' };

/**
 * `spec.failover.failback` when the policy has it (enabled or not: the spec is the newer word), else the
 * `flotilla.io/fail-back-after` annotation, which keeps working for the policies written before the field.
 */
export function failBackSettings(policy: FailBackPolicy | undefined): FailBackSettings {
  const f = policy?.failback;
  const text = f ? (f.enabled ? f.stabilizationWindow : undefined) : policy?.annotations?.[FAIL_BACK_ANNOTATION];
  if (f ? !f.enabled : !text) return { enabled: false, reason: 'NotEnabled' };
  const periodMs = parseFailBackPeriod(text);
  if (periodMs === undefined) return { enabled: false, reason: 'InvalidPeriod' };
  return {
    enabled: true,
    periodMs,
    period: text!.trim(),
    ...(f?.maxConcurrent !== undefined ? { maxConcurrent: f.maxConcurrent } : {}),
  };
}

/** The hold a binding's status records (`status.failBack`), written once when the hold starts. */
export interface FailBackHold {
  holdingSince: string;
  fromGroup: string;
  toGroup: string;
}

/** The fail-back status fields of a binding (folded by the status writer from the rebalancer's events). */
export interface FailBackStatus {
  failBack?: FailBackHold;
  lastFailBackTime?: string;
}

export interface FailBackInput {
  binding: ResourceBinding;
  /** The policy that claimed the binding: its annotations and `spec.failover.failback`. */
  policy: FailBackPolicy | undefined;
  clusters: readonly Cluster[];
  now: Date;
  /**
   * The hold this leader recorded while the status writer has not folded it yet; otherwise the binding's
   * `status.failBack` is the clock.
   */
  unfolded?: FailBackHold;
}

export type FailBackDecision =
  | {
      action: 'none';
      reason: string;
      /** The binding's status still records a hold: it broke, and the record is to be cleared. */
      clearHold: boolean;
    }
  | {
      action: 'wait';
      hold: FailBackHold;
      /** The status does not record this hold yet: it starts now, and is to be recorded (once). */
      recordHold: boolean;
      readyAt: string;
      recheckAfterMs: number;
    }
  | {
      action: 'trigger';
      hold: FailBackHold;
      recordHold: boolean;
      readyAt: string;
      rescheduleTriggeredAt: string;
    };

/**
 * Opt-in fail-back (asked for in karmada-io/karmada#4990 and #7717; Karmada itself never fails back): a binding
 * scheduled into a later clusterAffinities group is given a Fresh rescheduling, which starts again at the first
 * group, once an earlier group has been able to hold the workload for the policy's period without a break. The
 * same period is a hysteresis: no fail-back within a period of the binding's last trigger, so a cluster that
 * flaps cannot move the workload back and forth faster than that.
 *
 * "Could hold" is the scheduler's own answer: a Fresh scheduling of the binding against the clusters as they are
 * now lands in an earlier group than the one the binding observes.
 *
 * The clock is the binding's `status.failBack`, recorded once when a hold starts (`recordHold`) and cleared when it
 * breaks (`clearHold`), so a new leader goes on with it instead of starting it again. A `trigger` means the window
 * has passed: whether it goes now is the fleet's budget's to say (planFailBacks).
 */
export function decideFailBack(input: FailBackInput): FailBackDecision {
  const { binding, now } = input;
  const recorded = input.unfolded ?? (binding.status as FailBackStatus | undefined)?.failBack;
  const none = (reason: string): FailBackDecision => ({ action: 'none', reason, clearHold: recorded !== undefined });
  const settings = failBackSettings(input.policy);
  if (!settings.enabled) return none(settings.reason);
  const period = settings.periodMs;
  const groups = binding.spec.placement?.clusterAffinities ?? [];
  const observing = binding.status?.schedulerObservingAffinityName;
  const current = groups.findIndex((g) => g.affinityName === observing);
  if (groups.length < 2 || current <= 0) return none('InFirstGroup');
  const trigger = binding.spec.rescheduleTriggeredAt;
  const last = binding.status?.lastScheduledTime;
  // A Fresh rescheduling already asked for and not yet done: the scheduler is on it.
  // Its hold record stays: the rescheduling decides whether it still waits (same groups) or has moved.
  if (trigger && last && Date.parse(trigger) > Date.parse(last))
    return { action: 'none', reason: 'ReschedulePending', clearHold: false };

  const trial = scheduleBinding({
    binding: {
      ...binding,
      spec: { ...binding.spec, rescheduleTriggeredAt: formatTime(now) },
      status: { ...binding.status, lastScheduledTime: '1970-01-01T00:00:00Z' },
    },
    clusters: input.clusters,
    now,
  });
  const target = trial.ok ? groups.findIndex((g) => g.affinityName === trial.affinityName) : -1;
  if (target < 0 || target >= current) return none('NoEarlierGroupFits');
  const toGroup = groups[target]!.affinityName;
  const fromGroup = observing!;

  // The recorded hold is this one when it names the same move; a hold towards another group starts again.
  const same = recorded?.fromGroup === fromGroup && recorded.toGroup === toGroup;
  // Kept to the millisecond: a whole-second start would shorten the period by up to a second.
  const holdingSince = same ? recorded.holdingSince : now.toISOString();
  const hold = { holdingSince, fromGroup, toGroup };
  const recordHold = !same;
  const nowMs = now.getTime();
  // Fresh needs the trigger strictly after lastScheduledTime, both in whole seconds.
  const earliest = Math.max(
    Date.parse(holdingSince) + period,
    trigger ? Date.parse(trigger) + period : 0,
    last ? Date.parse(last) + 1000 : 0,
  );
  const readyAt = new Date(earliest).toISOString();
  if (nowMs < earliest) return { action: 'wait', hold, recordHold, readyAt, recheckAfterMs: earliest - nowMs };
  return { action: 'trigger', hold, recordHold, readyAt, rescheduleTriggeredAt: formatTime(now) };
}
