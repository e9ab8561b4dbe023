import { excludedMessage, excludingEntry } from './exclude-dates.js';
import { evolveHistory } from './history.js';
import { nextFireTime } from './next-fire-time.js';
import { parseSchedule } from './schedule.js';
import { ruleValues, targetKindOf } from './target.js';
import { formatTime } from '@flotilla/api';
import { DEFAULT_CONTROLLER_TIME_ZONE, resolveTimeZone } from './time-zone.js';
import type { CronFederatedHPA } from '@flotilla/api';
import type { AdmittedCronFederatedHPA } from './types.js';

/** One execution that would happen, with the values it would apply. */
export interface WhatIfExecution {
  ruleName: string;
  scheduleTime: string;
  targetReplicas?: number;
  targetMinReplicas?: number;
  targetMaxReplicas?: number;
}

/** An occurrence the rule's excludeDates skip: what the controller would record as a skipped execution. */
export interface WhatIfSkipped {
  ruleName: string;
  scheduleTime: string;
  /** The `excludeDates` entry that names the date. */
  excludeDate: string;
  message: string;
}

export interface WhatIfCronResult {
  /** The objects with `status.executionHistories[].{ruleName, nextExecutionTime}` as written at `now`. */
  items: CronFederatedHPA[];
  /** Executions in (now, until], by schedule time, then input order, then rule order. */
  executions: WhatIfExecution[];
  /** Occurrences in (now, until] on excluded dates, in the same order; absent when there are none. */
  skipped?: WhatIfSkipped[];
  /** Set when `executions` was cut at {@link MAX_WHAT_IF_EXECUTIONS}. */
  truncated?: true;
}

/** Keeps `what-if` on a per-second rule over a long window from printing without end. */
export const MAX_WHAT_IF_EXECUTIONS = 10_000;

/**
 * Offline preview of the cron scheduler on admitted CronFederatedHPAs: what the controller would write as each
 * rule's next execution time at `now` (existing histories of rules still present are kept, as the controller
 * keeps them), and, when `until` is given, every execution in (now, until].
 */
export function whatIfCron(
  cronFhpas: object[],
  now: Date,
  until?: Date,
  defaultTimeZone: string = DEFAULT_CONTROLLER_TIME_ZONE,
): WhatIfCronResult {
  const objects = cronFhpas as AdmittedCronFederatedHPA[];
  const items: CronFederatedHPA[] = [];
  const found: Array<WhatIfExecution & { at: number; order: number }> = [];
  const skipped: Array<WhatIfSkipped & { at: number; order: number }> = [];
  let truncated = false;
  objects.forEach((obj, objIndex) => {
    const rules = obj.spec?.rules ?? [];
    const nextTimes = rules.map((rule) => ({
      ruleName: rule.name,
      nextExecutionTime:
        rule.suspend === true ? null : nextFireTime(rule.schedule, rule.timeZone, now, defaultTimeZone).toISOString(),
    }));
    const status = evolveHistory(structuredClone(obj.status), {
      type: 'CronNextScheduled',
      data: { rules: nextTimes },
    });
    items.push({ ...structuredClone(obj), status });
    if (!until) return;
    const kind = targetKindOf(obj.spec.scaleTargetRef);
    rules.forEach((rule, ruleIndex) => {
      if (rule.suspend === true) return;
      const schedule = parseSchedule(rule.schedule);
      const v = ruleValues(rule, kind);
      const zone = resolveTimeZone(rule.timeZone, defaultTimeZone);
      let t = now;
      for (;;) {
        t = nextFireTime(schedule, rule.timeZone, t, defaultTimeZone);
        if (t > until) break;
        if (found.length + skipped.length >= MAX_WHAT_IF_EXECUTIONS) {
          truncated = true;
          break;
        }
        const order = objIndex * 10_000 + ruleIndex;
        const excludeDate = excludingEntry(rule.excludeDates, t, zone);
        if (excludeDate !== undefined) {
          skipped.push({
            at: t.getTime(),
            order,
            ruleName: rule.name,
            scheduleTime: formatTime(t),
            excludeDate,
            message: excludedMessage(t, zone, excludeDate),
          });
          continue;
        }
        found.push({
          at: t.getTime(),
          order,
          ruleName: rule.name,
          scheduleTime: formatTime(t),
          ...(v.replicas !== undefined && { targetReplicas: v.replicas }),
          ...(v.minReplicas !== undefined && { targetMinReplicas: v.minReplicas }),
          ...(v.maxReplicas !== undefined && { targetMaxReplicas: v.maxReplicas }),
        });
      }
    });
  });
  const byTime = (a: { at: number; order: number }, b: { at: number; order: number }): number =>
    a.at - b.at || a.order - b.order;
  const executions = found.sort(byTime).map(({ at: _a, order: _o, ...e }) => e);
  const result: WhatIfCronResult = { items, executions };
  if (skipped.length) result.skipped = skipped.sort(byTime).map(({ at: _a, order: _o, ...e }) => e);
  if (truncated) result.truncated = true;
  return result;
}
