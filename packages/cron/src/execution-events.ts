import { SCALE_FAILED_REASON, type ScaleEffect } from './effects.js';
import { EXCLUDED_DATE_REASON, type CronEvent, type CronNextScheduledData } from './events.js';
import type { CronPlan, DueExecution, MissedExecution, SkippedExecution } from './plan.js';
import { formatTime } from '@flotilla/api';
import { DEFAULT_HISTORY_LIMIT, type CronFederatedHPARule } from '@flotilla/api';

function nextDueOf(plan: CronPlan, ruleName: string): string | null {
  return plan.state.find((s) => s.ruleName === ruleName)?.nextDue ?? null;
}

/** The rules' next times after `plan`, for a CronNextScheduled event. */
export function nextScheduledData(plan: CronPlan): CronNextScheduledData {
  return { rules: plan.state.map((s) => ({ ruleName: s.ruleName, nextExecutionTime: s.nextDue })) };
}

/** The event recording a missed occurrence. */
export function missedEvent(plan: CronPlan, missed: MissedExecution, rule: CronFederatedHPARule, now: Date): CronEvent {
  return {
    type: 'CronRuleFailed',
    data: {
      ruleName: missed.ruleName,
      scheduleTime: formatTime(missed.scheduleTime),
      executionTime: now.toISOString(),
      message: missed.message,
      missed: true,
      nextExecutionTime: nextDueOf(plan, missed.ruleName),
      failedHistoryLimit: rule.failedHistoryLimit ?? DEFAULT_HISTORY_LIMIT,
      kubeEvent: { type: 'Warning', reason: 'ScheduleMissed', message: `rule ${missed.ruleName}: ${missed.message}` },
    },
  };
}

/** The event recording an occurrence skipped because its date is excluded. */
export function skippedEvent(
  plan: CronPlan,
  skipped: SkippedExecution,
  rule: CronFederatedHPARule,
  now: Date,
): CronEvent {
  return {
    type: 'CronRuleSkipped',
    data: {
      ruleName: skipped.ruleName,
      scheduleTime: formatTime(skipped.scheduleTime),
      executionTime: now.toISOString(),
      reason: EXCLUDED_DATE_REASON,
      excludeDate: skipped.excludeDate,
      message: skipped.message,
      nextExecutionTime: nextDueOf(plan, skipped.ruleName),
      skippedHistoryLimit: rule.successfulHistoryLimit ?? DEFAULT_HISTORY_LIMIT,
      kubeEvent: {
        type: 'Normal',
        reason: EXCLUDED_DATE_REASON,
        message: `rule ${skipped.ruleName}: ${skipped.message}`,
      },
    },
  };
}

/** The event recording one execution's outcome: a success with the values it applied, or a failure and why. */
export function executionEvent(
  plan: CronPlan,
  execution: DueExecution,
  rule: CronFederatedHPARule,
  effect: ScaleEffect,
  executionTime: Date,
  target?: string,
): CronEvent {
  const base = {
    ruleName: execution.ruleName,
    scheduleTime: formatTime(execution.scheduleTime),
    executionTime: executionTime.toISOString(),
    nextExecutionTime: nextDueOf(plan, execution.ruleName),
  };
  if (!effect.ok) {
    return {
      type: 'CronRuleFailed',
      data: {
        ...base,
        message: effect.message,
        missed: false,
        reason: effect.reason,
        failedHistoryLimit: rule.failedHistoryLimit ?? DEFAULT_HISTORY_LIMIT,
        kubeEvent: {
          type: 'Warning',
          reason: SCALE_FAILED_REASON,
          message: `rule ${execution.ruleName}: ${effect.message}`,
        },
      },
    };
  }
  return {
    type: 'CronRuleExecuted',
    data: {
      ...base,
      ...effect.applied,
      successfulHistoryLimit: rule.successfulHistoryLimit ?? DEFAULT_HISTORY_LIMIT,
      ...(target ? { target } : {}),
    },
  };
}
