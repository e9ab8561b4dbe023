/**
 * Minimal structural types for autoscaling.karmada.io/v1alpha1 CronFederatedHPA, with Karmada's CronFederatedHPA proposal's JSON field
 * names. Times are RFC 3339 strings in UTC (metav1.Time), e.g. `2026-03-08T09:03:00Z`.
 */

export interface ScaleTargetRef {
  apiVersion?: string;
  kind: string;
  name: string;
}

export interface CronFederatedHPARule {
  name: string;
  schedule: string;
  targetReplicas?: number;
  targetMinReplicas?: number;
  targetMaxReplicas?: number;
  suspend?: boolean;
  timeZone?: string;
  successfulHistoryLimit?: number;
  failedHistoryLimit?: number;
}

export interface CronFederatedHPASpec {
  scaleTargetRef: ScaleTargetRef;
  rules: CronFederatedHPARule[];
}

export interface SuccessfulExecution {
  scheduleTime: string;
  executionTime: string;
  appliedReplicas?: number;
  appliedMinReplicas?: number;
  appliedMaxReplicas?: number;
}

export interface FailedExecution {
  scheduleTime: string;
  executionTime: string;
  message: string;
}

export interface ExecutionHistory {
  ruleName: string;
  /** Absent when the rule is suspended. */
  nextExecutionTime?: string;
  successfulExecutions?: SuccessfulExecution[];
  failedExecutions?: FailedExecution[];
}

export interface CronFederatedHPAStatus {
  executionHistories?: ExecutionHistory[];
}

export interface CronFederatedHPAMetadata {
  name: string;
  namespace?: string;
  uid?: string;
  [key: string]: unknown;
}

export interface CronFederatedHPA {
  apiVersion: string;
  kind: string;
  metadata: CronFederatedHPAMetadata;
  spec: CronFederatedHPASpec;
  status?: CronFederatedHPAStatus;
}

/** Karmada's CronFederatedHPA proposal: both history limits default to 3 (also when the field is nil at run time). */
export const DEFAULT_HISTORY_LIMIT = 3;

/** The values an execution sets on its target; which ones depends on the target kind. */
export interface TargetValues {
  replicas?: number;
  minReplicas?: number;
  maxReplicas?: number;
}
