import { SCALE_FAILED_REASON, type ScaleEffect } from './effects.js';
import type { CronEvent, CronNextScheduledData } from './events.js';
import type { CronPlan, DueExecution, MissedExecution } from './plan.js';
import { formatTime } from './time-format.js';
import { DEFAULT_HISTORY_LIMIT, type CronFederatedHPARule } from './types.js';

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

/**
 * The event recording one execution's outcome: the effect's result, or `writeError` when the effect was fine
 * but writing the target failed.
 */
export function executionEvent(
  plan: CronPlan,
  execution: DueExecution,
  rule: CronFederatedHPARule,
  effect: ScaleEffect,
  executionTime: Date,
  writeError?: string,
): CronEvent {
  const base = {
    ruleName: execution.ruleName,
    scheduleTime: formatTime(execution.scheduleTime),
    executionTime: executionTime.toISOString(),
    nextExecutionTime: nextDueOf(plan, execution.ruleName),
  };
  const failure = !effect.ok ? effect.message : writeError;
  if (failure !== undefined) {
    return {
      type: 'CronRuleFailed',
      data: {
        ...base,
        message: failure,
        missed: false,
        failedHistoryLimit: rule.failedHistoryLimit ?? DEFAULT_HISTORY_LIMIT,
        kubeEvent: { type: 'Warning', reason: SCALE_FAILED_REASON, message: `rule ${execution.ruleName}: ${failure}` },
      },
    };
  }
  const applied = effect.ok ? effect.applied : {};
  return {
    type: 'CronRuleExecuted',
    data: { ...base, ...applied, successfulHistoryLimit: rule.successfulHistoryLimit ?? DEFAULT_HISTORY_LIMIT },
  };
}
