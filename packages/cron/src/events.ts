import type { KubeEventData } from '@flotilla/api';
import type { AppliedValues, ScaleFailureReason } from './effects.js';

/** The cron-scheduler's domain event types (subjects `<prefix>.events.CronFederatedHPA.<ns>.<name>.<type>`). */
export const CronEventTypes = {
  CronRuleExecuted: 'CronRuleExecuted',
  CronRuleFailed: 'CronRuleFailed',
  CronNextScheduled: 'CronNextScheduled',
  CronRuleSkipped: 'CronRuleSkipped',
} as const;

/** The reason of a skipped execution (the Kubernetes event's reason too). */
export const EXCLUDED_DATE_REASON = 'ExcludedDate';

/**
 * A rule's execution succeeded. Carries the limit and the rule's next time so that folding it needs nothing
 * but the event (status is a projection of the stream).
 */
export interface CronRuleExecutedData extends AppliedValues {
  ruleName: string;
  /** The occurrence that ran (RFC 3339, whole seconds). */
  scheduleTime: string;
  /** When it ran, to the millisecond (status keeps whole seconds; lateness is measured from this). */
  executionTime: string;
  /** The rule's next fire time after this run; null when it is suspended. */
  nextExecutionTime: string | null;
  successfulHistoryLimit: number;
  /** What it set, `FederatedHPA shop` or `Deployment web`: the replica trail names it (packages/replica-trail). */
  target?: string;
  kubeEvent?: KubeEventData;
}

/** A rule's execution failed, or was missed (the service was down at its time and it was not applied). */
export interface CronRuleFailedData {
  ruleName: string;
  scheduleTime: string;
  executionTime: string;
  message: string;
  /** True for a missed occurrence recorded on recovery rather than an attempt that failed. */
  missed: boolean;
  /** Why an attempt failed (absent for a missed occurrence), for tools that act on the cause. */
  reason?: ScaleFailureReason;
  nextExecutionTime: string | null;
  failedHistoryLimit: number;
  kubeEvent?: KubeEventData;
}

/**
 * A rule's occurrence fell on a date its `excludeDates` name and was not applied (a Flotilla extension: the record
 * goes to the rule's `skippedExecutions`, which Karmada's status does not have).
 */
export interface CronRuleSkippedData {
  ruleName: string;
  scheduleTime: string;
  executionTime: string;
  reason: typeof EXCLUDED_DATE_REASON;
  /** The entry of `excludeDates` that names the date. */
  excludeDate: string;
  message: string;
  nextExecutionTime: string | null;
  /** Skips are kept as many as successes (they are the rule working as written). */
  skippedHistoryLimit: number;
  kubeEvent?: KubeEventData;
}

/**
 * The full list of an object's rules with their next times, in spec order, published when rules are added,
 * edited, renamed, suspended or removed. Histories of rules not listed are dropped.
 */
export interface CronNextScheduledData {
  rules: Array<{ ruleName: string; nextExecutionTime: string | null }>;
}

export type CronEvent =
  | { type: typeof CronEventTypes.CronRuleExecuted; data: CronRuleExecutedData }
  | { type: typeof CronEventTypes.CronRuleFailed; data: CronRuleFailedData }
  | { type: typeof CronEventTypes.CronNextScheduled; data: CronNextScheduledData }
  | { type: typeof CronEventTypes.CronRuleSkipped; data: CronRuleSkippedData };
