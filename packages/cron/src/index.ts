export { CronSyntaxError, ExcludeDateSyntaxError, NoFireTimeError, UnknownTimeZoneError } from './errors.js';
export {
  excludeDateError,
  excludedMessage,
  excludingEntry,
  localDate,
  parseExcludeDate,
  type ExcludeDate,
} from './exclude-dates.js';
export { parseSchedule, scheduleError, type CronSchedule } from './schedule.js';
export { DEFAULT_CONTROLLER_TIME_ZONE, resolveTimeZone, timeZoneError } from './time-zone.js';
export { scheduleChecks } from './schedule-checks.js';
export { fireTimesBetween, nextFireTime } from './next-fire-time.js';
export {
  DEFAULT_CATCH_UP_WINDOW_MS,
  planCronExecutions,
  ruleClock,
  type CronPlan,
  type CronPlanInput,
  type DueExecution,
  type MissedExecution,
  type RuleState,
  type SkippedExecution,
} from './plan.js';
export { ruleValues, targetKindOf, type TargetKind } from './target.js';
export {
  SCALE_FAILED_REASON,
  scaleEffect,
  type AppliedValues,
  type ScaleEffect,
  type ScaleFailureReason,
  type ScaleTargetSnapshot,
} from './effects.js';
export {
  CronEventTypes,
  EXCLUDED_DATE_REASON,
  type CronEvent,
  type CronRuleSkippedData,
  type CronNextScheduledData,
  type CronRuleExecutedData,
  type CronRuleFailedData,
} from './events.js';
export { evolveHistory } from './history.js';
export {
  MAX_WHAT_IF_EXECUTIONS,
  whatIfCron,
  type WhatIfCronResult,
  type WhatIfExecution,
  type WhatIfSkipped,
} from './what-if.js';
export { executionId } from './execution-id.js';
export type * from './types.js';
export { executionEvent, missedEvent, nextScheduledData, skippedEvent } from './execution-events.js';
