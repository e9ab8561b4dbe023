export type * from './types.js';
export { REFERENCED_BINDING_NOT_FOUND } from './types.js';
export { RebalanceInputError } from './errors.js';
export { bindingKey, bindingMatchesWorkload, bindingRefOf } from './binding-ref.js';
export {
  compareWorkloads,
  normalizeReference,
  syncObservedWorkloads,
  workloadKey,
  workloadSortKey,
  type ObservedSync,
} from './observed-workloads.js';
export {
  RebalanceEventTypes,
  WorkloadEventTypes,
  type KubeEventData,
  type RebalanceBindingNotFoundData,
  type RebalanceEvent,
  type RebalanceFinishedData,
  type RebalanceObservedData,
  type RebalanceTriggeredData,
  type TriggeredWorkload,
  type WorkloadRescheduleTriggeredData,
} from './events.js';
export { evolveRebalancerStatus, foldRebalancerStatus } from './evolve.js';
export {
  bindingsToRead,
  needsTrigger,
  planRebalance,
  reconcileRebalancer,
  type BindingWrite,
  type PlanInput,
  type RebalanceDecision,
  type ReconcileInput,
} from './reconcile.js';
export { ttlOutcome, type TtlOutcome } from './ttl.js';
export { chunkEvents } from './chunk-events.js';
export { selectedKinds, selectWorkloads, type SelectableTemplate } from './selectors.js';
export {
  decideFailBack,
  FAIL_BACK_ANNOTATION,
  failBackSettings,
  parseFailBackPeriod,
  type FailBackDecision,
  type FailBackHold,
  type FailBackInput,
  type FailBackPolicy,
  type FailBackSettings,
  type FailBackStatus,
} from './fail-back.js';
export {
  FAIL_BACK_BUDGET_DEFAULTS,
  planFailBacks,
  type FailBackBudget,
  type FailBackCandidate,
  type FailBackPlanInput,
  type FailBackWait,
  type PlannedFailBack,
} from './fail-back-budget.js';
export { failBackQueue, type FailBackQueueInput, type QueuedFailBack } from './fail-back-queue.js';
export { whatIfRebalance, type WhatIfRebalanceResult } from './what-if.js';
