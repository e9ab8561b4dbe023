import { formatTime, parseGoDuration } from '@flotilla/api';
import { scheduleBinding, type Cluster, type ResourceBinding } from '@flotilla/scheduling';

/** On a (Cluster)PropagationPolicy: fail back to an earlier affinity group after it could hold the workload this long. */
export const FAIL_BACK_ANNOTATION = 'flotilla.io/fail-back-after';

/** The annotation's Go duration (`10m`, `1h30m`, `90s`) in milliseconds; undefined when it is not a positive one. */
export function parseFailBackPeriod(text: string | undefined): number | undefined {
  const ms = text === undefined ? undefined : parseGoDuration(text.trim());
  return ms !== undefined && ms > 0 ? ms : undefined;
}

export interface FailBackInput {
  binding: ResourceBinding;
  /** The annotations of the policy that claimed the binding. */
  policyAnnotations: Record<string, string> | undefined;
  clusters: readonly Cluster[];
  now: Date;
  /** Since when an earlier group could hold the workload, as the previous decision returned it (in memory). */
  holdingSince?: string;
}

export type FailBackDecision =
  | { action: 'none'; reason: string }
  | { action: 'wait'; holdingSince: string; toGroup: string; recheckAfterMs: number }
  | { action: 'trigger'; rescheduleTriggeredAt: string; fromGroup: string; toGroup: string; holdingSince: string };

/**
 * Opt-in fail-back (asked for in karmada-io/karmada#4990 and #7717; Karmada itself never fails back): a binding
 * scheduled into a later clusterAffinities group is given a Fresh rescheduling, which starts again at the first
 * group, once an earlier group has been able to hold the workload for the policy's period without a break. The
 * same period is a hysteresis: no fail-back within a period of the binding's last trigger, so a cluster that
 * flaps cannot move the workload back and forth faster than that.
 *
 * "Could hold" is the scheduler's own answer: a Fresh scheduling of the binding against the clusters as they are
 * now lands in an earlier group than the one the binding observes.
 */
export function decideFailBack(input: FailBackInput): FailBackDecision {
  const { binding, now } = input;
  const period = parseFailBackPeriod(input.policyAnnotations?.[FAIL_BACK_ANNOTATION]);
  if (period === undefined)
    return { action: 'none', reason: input.policyAnnotations?.[FAIL_BACK_ANNOTATION] ? 'InvalidPeriod' : 'NotEnabled' };
  const groups = binding.spec.placement?.clusterAffinities ?? [];
  const observing = binding.status?.schedulerObservingAffinityName;
  const current = groups.findIndex((g) => g.affinityName === observing);
  if (groups.length < 2 || current <= 0) return { action: 'none', reason: 'InFirstGroup' };
  const trigger = binding.spec.rescheduleTriggeredAt;
  const last = binding.status?.lastScheduledTime;
  // A Fresh rescheduling already asked for and not yet done: the scheduler is on it.
  if (trigger && last && Date.parse(trigger) > Date.parse(last)) return { action: 'none', reason: 'ReschedulePending' };

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
  if (target < 0 || target >= current) return { action: 'none', reason: 'NoEarlierGroupFits' };
  const toGroup = groups[target]!.affinityName;

  // Kept to the millisecond: a whole-second start would shorten the period by up to a second.
  const holdingSince = input.holdingSince ?? now.toISOString();
  const nowMs = now.getTime();
  // Fresh needs the trigger strictly after lastScheduledTime, both in whole seconds.
  const earliest = Math.max(
    Date.parse(holdingSince) + period,
    trigger ? Date.parse(trigger) + period : 0,
    last ? Date.parse(last) + 1000 : 0,
  );
  if (nowMs < earliest) return { action: 'wait', holdingSince, toGroup, recheckAfterMs: earliest - nowMs };
  return { action: 'trigger', rescheduleTriggeredAt: formatTime(now), fromGroup: observing!, toGroup, holdingSince };
}
