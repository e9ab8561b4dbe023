import type { CronFederatedHPA, CronFederatedHPARule } from '@flotilla/api';
import { DEFAULT_CONTROLLER_TIME_ZONE, whatIfCron } from '@flotilla/cron';
import { formatInZone } from './time-axis.js';

/** How far ahead the cron page looks, and how many runs of a rule it shows at most. */
export const CRON_VIEW_DEFAULTS = { horizonMs: 7 * 86_400_000, runsPerRule: 10, historyPerRule: 10 } as const;

export interface CronRun {
  /** Epoch milliseconds. */
  t: number;
  /** The run in the rule's own time zone: `2024-03-11 08:00 GMT+8`. */
  local: string;
  /** What it sets: `replicas 10`, `min 2 max 8`. */
  values: string;
}

export interface CronHistoryRow {
  scheduleTime: string;
  local: string;
  outcome: 'Succeeded' | 'Failed' | 'Skipped';
  detail: string;
}

/** One rule of a CronFederatedHPA as its page shows it. */
export interface CronRuleTimeline {
  rule: string;
  schedule: string;
  timeZone: string;
  suspended: boolean;
  /** The next runs after now within the horizon, in order. */
  next: CronRun[];
  /** Occurrences within the horizon that an excludeDates entry skips, with the entry. */
  excluded: Array<CronRun & { entry: string }>;
  /** The recorded executions, newest first. */
  history: CronHistoryRow[];
}

const values = (e: Pick<CronFederatedHPARule, 'targetReplicas' | 'targetMinReplicas' | 'targetMaxReplicas'>) =>
  [
    e.targetReplicas === undefined ? '' : `replicas ${e.targetReplicas}`,
    e.targetMinReplicas === undefined ? '' : `min ${e.targetMinReplicas}`,
    e.targetMaxReplicas === undefined ? '' : `max ${e.targetMaxReplicas}`,
  ]
    .filter(Boolean)
    .join(' ');

/**
 * A CronFederatedHPA's rules on a time axis: the runs the cron scheduler would make (the same `whatIfCron` as
 * `flotilla what-if cron`), the dates excluded, and the execution history from status, each time in the rule's zone.
 */
export function cronTimelines(
  object: CronFederatedHPA,
  now: Date,
  o: { horizonMs?: number; runsPerRule?: number; historyPerRule?: number; defaultTimeZone?: string } = {},
): CronRuleTimeline[] {
  const horizonMs = o.horizonMs ?? CRON_VIEW_DEFAULTS.horizonMs;
  const runsPerRule = o.runsPerRule ?? CRON_VIEW_DEFAULTS.runsPerRule;
  const historyPerRule = o.historyPerRule ?? CRON_VIEW_DEFAULTS.historyPerRule;
  const defaultZone = o.defaultTimeZone ?? DEFAULT_CONTROLLER_TIME_ZONE;
  const plan = whatIfCron([object], now, new Date(now.getTime() + horizonMs), defaultZone);
  const histories = object.status?.executionHistories ?? [];
  return (object.spec?.rules ?? []).map((rule) => {
    const zone = rule.timeZone ?? defaultZone;
    const run = (scheduleTime: string, v: string): CronRun => {
      const t = Date.parse(scheduleTime);
      return { t, local: formatInZone(t, zone), values: v };
    };
    const h = histories.find((x) => x.ruleName === rule.name);
    const history: CronHistoryRow[] = [
      ...(h?.successfulExecutions ?? []).map((e) => {
        const applied = [
          e.appliedReplicas === undefined ? '' : `replicas ${e.appliedReplicas}`,
          e.appliedMinReplicas === undefined ? '' : `min ${e.appliedMinReplicas}`,
          e.appliedMaxReplicas === undefined ? '' : `max ${e.appliedMaxReplicas}`,
        ].filter(Boolean);
        return { scheduleTime: e.scheduleTime, outcome: 'Succeeded' as const, detail: `applied ${applied.join(' ')}` };
      }),
      ...(h?.failedExecutions ?? []).map((e) => ({
        scheduleTime: e.scheduleTime,
        outcome: 'Failed' as const,
        detail: e.message,
      })),
      ...(h?.skippedExecutions ?? []).map((e) => ({
        scheduleTime: e.scheduleTime,
        outcome: 'Skipped' as const,
        detail: e.message,
      })),
    ]
      .sort((a, b) => Date.parse(b.scheduleTime) - Date.parse(a.scheduleTime))
      .slice(0, historyPerRule)
      .map((r) => ({ ...r, local: formatInZone(Date.parse(r.scheduleTime), zone) }));
    return {
      rule: rule.name,
      schedule: rule.schedule,
      timeZone: zone,
      suspended: rule.suspend === true,
      next: plan.executions
        .filter((e) => e.ruleName === rule.name)
        .slice(0, runsPerRule)
        .map((e) => run(e.scheduleTime, values(e))),
      excluded: (plan.skipped ?? [])
        .filter((e) => e.ruleName === rule.name)
        .slice(0, runsPerRule)
        .map((e) => ({ ...run(e.scheduleTime, values(rule)), entry: e.excludeDate })),
      history,
    };
  });
}
