import { evolveHistory } from './history.js';
import { nextFireTime } from './next-fire-time.js';
import { parseSchedule } from './schedule.js';
import { ruleValues, targetKindOf } from './target.js';
import { formatTime } from '@flotilla/api';
import { DEFAULT_CONTROLLER_TIME_ZONE } from './time-zone.js';
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

export interface WhatIfCronResult {
  /** The objects with `status.executionHistories[].{ruleName, nextExecutionTime}` as written at `now`. */
  items: CronFederatedHPA[];
  /** Executions in (now, until], by schedule time, then input order, then rule order. */
  executions: WhatIfExecution[];
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
      let t = now;
      for (;;) {
        t = nextFireTime(schedule, rule.timeZone, t, defaultTimeZone);
        if (t > until) break;
        if (found.length >= MAX_WHAT_IF_EXECUTIONS) {
          truncated = true;
          break;
        }
        found.push({
          at: t.getTime(),
          order: objIndex * 10_000 + ruleIndex,
          ruleName: rule.name,
          scheduleTime: formatTime(t),
          ...(v.replicas !== undefined && { targetReplicas: v.replicas }),
          ...(v.minReplicas !== undefined && { targetMinReplicas: v.minReplicas }),
          ...(v.maxReplicas !== undefined && { targetMaxReplicas: v.maxReplicas }),
        });
      }
    });
  });
  found.sort((a, b) => a.at - b.at || a.order - b.order);
  const executions = found.map(({ at: _a, order: _o, ...e }) => e);
  return truncated ? { items, executions, truncated: true } : { items, executions };
}
