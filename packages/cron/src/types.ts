/**
 * Views of the API's CronFederatedHPA that the cron logic works on. Times are RFC 3339 strings in UTC
 * (metav1.Time), e.g. `2026-03-08T09:03:00Z`.
 */
import type {
  CronFederatedHPA,
  CronFederatedHPASpec,
  CronFederatedHPAStatus,
  CrossVersionObjectReference,
} from '@flotilla/api';

export type ScaleTargetRef = CrossVersionObjectReference;

/** One rule's entry of `status.executionHistories`. */
export type ExecutionHistory = NonNullable<CronFederatedHPAStatus['executionHistories']>[number];
export type SuccessfulExecution = NonNullable<ExecutionHistory['successfulExecutions']>[number];
export type FailedExecution = NonNullable<ExecutionHistory['failedExecutions']>[number];

/** What planning reads of an object: its spec, which admission guarantees. */
export interface CronObjectSpec {
  spec: CronFederatedHPASpec;
}

/** A CronFederatedHPA as admission leaves it: the spec is always there. */
export type AdmittedCronFederatedHPA = CronFederatedHPA & CronObjectSpec;

/** The values an execution sets on its target; which ones depends on the target kind. */
export interface TargetValues {
  replicas?: number;
  minReplicas?: number;
  maxReplicas?: number;
}
