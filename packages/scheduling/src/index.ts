export * from './types.js';
export { SchedulingInputError, ScheduleAttemptError, type ScheduleErrorKind } from './errors.js';
export { fnv1a32, prefersDescendingNames } from './tie-break.js';
export { websterSeats, compareNames, type Party, type Seat } from './webster.js';
export { matchesLabelSelector } from '@flotilla/api/core';
export { clusterMatchesAffinity, clusterZones } from './cluster-affinity.js';
export {
  toleratesTaint,
  findUntoleratedTaint,
  findEvictingTaint,
  nextEvictionTime,
  evictionTime,
  taintToString,
} from './taints.js';
export {
  decideTaints,
  DEFAULT_FAILOVER_GRACE_MS,
  NOT_READY_TAINT,
  UNREACHABLE_TAINT,
  UNSCHEDULABLE_TAINT,
  type TaintDecision,
} from './cluster-taints.js';
export { feasibleClusterNames } from './feasible-clusters.js';
export { bindingClusterTiers, clusterTier, overflowTiers, tierName, isWorkload, NO_TIER } from './overflow.js';
export {
  filterClusters,
  isReady,
  FilterReason,
  type FilterInput,
  type FilterResult,
  type FilteredCluster,
} from './filters.js';
export { estimateFreeReplicas, type EstimateOptions, MAX_REPLICAS, type ClusterView } from './estimate.js';
export { parseResourceRequest, type ParsedRequest, type Usage } from './request.js';
export { AssumedUsage, type AssignedReplicas } from './assumed-usage.js';
export { type Candidate, compareCandidates, tierCapacity } from './candidate.js';
export { resolveStrategy, ignoresSpreadConstraints, type Strategy } from './strategy.js';
export { assignReplicas, type AssignInput, type ScheduleMode } from './divide.js';
export { selectBySpreadConstraints, selectGroups, type Group } from './spread.js';
export {
  scheduleBinding,
  scheduleMode,
  fitErrorMessage,
  type ScheduleInput,
  type ScheduleResult,
  type ScheduleSuccess,
  type ScheduleFailure,
  type ScheduleFailureReason,
  type GroupAttempt,
} from './schedule.js';
export { scheduledCondition, SCHEDULED_MESSAGE, type ScheduledOutcome } from './binding-status.js';
export {
  scheduleTrigger,
  placementChanged,
  appliedPlacement,
  replicasChanged,
  remainingTargets,
  evictionRecheckMs,
  APPLIED_PLACEMENT_ANNOTATION,
  type ScheduleTrigger,
} from './reschedule.js';
export { claimingPolicy, policyClaim, preempts, type PolicyClaim } from './policy-claim.js';
export {
  findMatchingPolicy,
  buildBinding,
  bindingPriority,
  type BuildBindingOptions,
  ClaimAnnotations,
  bindingName,
  selectorPriority,
  policyMatchPriority,
  templateReplicas,
  podRequests,
  isClusterPolicy,
  ImplicitPriority,
} from './detection.js';
export { podSpecRequests } from './pod-requests.js';
export { podNodeClaim } from './node-claim.js';
export { withDetected } from './detect-binding.js';
export {
  decideBinding,
  revisitAfterMs,
  observedAfter,
  statusBasis,
  statusPatchFor,
  statusAfter,
  resultWrite,
  type BindingDecision,
  type ScheduledDecision,
  type KeptDecision,
  type ObservedSchedule,
} from './decide-binding.js';
export { whatIfSchedule } from './what-if.js';
