import type { KubeEventData } from '@flotilla/api';
import type { BindingRef, WorkloadReference } from './types.js';

/** The rebalancer's domain event types (subjects `<prefix>.events.WorkloadRebalancer._.<name>.<type>`). */
export const RebalanceEventTypes = {
  RebalanceObserved: 'RebalanceObserved',
  RebalanceTriggered: 'RebalanceTriggered',
  RebalanceBindingNotFound: 'RebalanceBindingNotFound',
  RebalanceFinished: 'RebalanceFinished',
} as const;

/** Events about other objects than the rebalancer: a workload it rescheduled, a binding failed back. */
export const WorkloadEventTypes = {
  WorkloadRescheduleTriggered: 'WorkloadRescheduleTriggered',
  FailBackTriggered: 'FailBackTriggered',
  /** A fail-back's hold started: folded into the binding's `status.failBack`, the clock a new leader goes on with. */
  FailBackHoldStarted: 'FailBackHoldStarted',
  /** The hold broke (the earlier group cannot hold the workload any more, or fail-back was turned off). */
  FailBackHoldEnded: 'FailBackHoldEnded',
} as const;

export type { KubeEventData };

/** The observed list was rebuilt from spec (created or edited): new references pending, dropped ones gone. */
export interface RebalanceObservedData {
  observedGeneration: number;
  added: WorkloadReference[];
  dropped: WorkloadReference[];
  kubeEvent?: KubeEventData;
}

export interface TriggeredWorkload {
  workload: WorkloadReference;
  binding: BindingRef;
  /** The value the binding's spec.rescheduleTriggeredAt holds now (the rebalancer's creationTimestamp, or later). */
  rescheduleTriggeredAt: string;
  /** False when the binding already held that time or a later one (no write). */
  written: boolean;
  /** The binding's clusters when it was triggered: the placement before the Fresh rescheduling. */
  clustersBefore?: Array<{ name: string; replicas?: number }>;
}

/** These workloads' bindings carry the trigger: they are Successful. */
export interface RebalanceTriggeredData {
  workloads: TriggeredWorkload[];
  kubeEvent?: KubeEventData;
}

/** These workloads have no binding: Failed, ReferencedBindingNotFound. */
export interface RebalanceBindingNotFoundData {
  workloads: Array<{ workload: WorkloadReference; binding: BindingRef }>;
  kubeEvent?: KubeEventData;
}

/** Every workload has a result and the status changed: finishTime moves. */
export interface RebalanceFinishedData {
  finishTime: string;
  successful: number;
  failed: number;
  kubeEvent?: KubeEventData;
}

export type RebalanceEvent =
  | { type: typeof RebalanceEventTypes.RebalanceObserved; data: RebalanceObservedData }
  | { type: typeof RebalanceEventTypes.RebalanceTriggered; data: RebalanceTriggeredData }
  | { type: typeof RebalanceEventTypes.RebalanceBindingNotFound; data: RebalanceBindingNotFoundData }
  | { type: typeof RebalanceEventTypes.RebalanceFinished; data: RebalanceFinishedData };

/** A workload's own event: its binding was triggered by a rebalancer (shown by `describe` on the workload). */
export interface WorkloadRescheduleTriggeredData {
  rebalancer: string;
  binding: BindingRef;
  rescheduleTriggeredAt: string;
  kubeEvent: KubeEventData;
}
