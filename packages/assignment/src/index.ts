export type { AssignmentPolicy, MemberAssignment, BindingCluster, ClusterFacts } from './types.js';
export { AssignmentInputError } from './errors.js';
export { candidateClusters, type Candidates } from './candidates.js';
export { clusterAvailability, parsedPodRequests } from './availability.js';
export { clusterPreference } from './preferences.js';
export { clusterFacts } from './cluster-facts.js';
export { hamiltonSplit, type WeightedParty, type HamiltonOptions } from './hamilton.js';
export { fillInOrder, type Room } from './ordered-fill.js';
export { byPriority, byAvailability, byClusterName } from './preference-order.js';
export { assignMinMax, splitByPolicy, type Bounds, type DividingPolicy } from './assign.js';
export { memberReplicas } from './member-replicas.js';
export { diffAssignments, assignmentsEqual, bindingClustersEqual, type AssignmentDiff } from './assignment-diff.js';
export {
  decideAssignment,
  type AssignmentInput,
  type AssignmentDecision,
  type AssignmentReason,
} from './decide-assignment.js';
export { scaleUpAcross, type PrioritizedMember, type ScaleUpPlan, type MaxMove } from './scale-up-across.js';
export { scaleDownOrder, type ScaleDownMember, type ScaleDownPlan } from './scale-down-order.js';
export { optimiseMax, type RunningMember, type MaxOptimisation } from './optimise-max.js';
export { scaleToZero, type ScaleToZeroInput, type ScaleToZeroDecision } from './scale-to-zero.js';
export {
  assignmentBasis,
  decideFederatedHpa,
  type FederatedHpaDecision,
  type FederatedHpaReason,
  type FederatedHpaState,
  type MemberStatus,
  type RecordedAssignment,
} from './decide-federated-hpa.js';
export { whatIfFederatedHpa, type FederatedHpaWhatIf } from './what-if.js';
export { decideCentralized, type CentralizedDecision, type CentralizedInput } from './centralized.js';
export { federationUtilisation } from './federation-utilisation.js';
export {
  assignmentRecordStatus,
  legacyRecordedAssignment,
  memberHpaBindingAnnotations,
  recordedAssignmentOfStatus,
  withoutLegacyRecord,
  type AssignmentRecordStatus,
} from './recorded-assignment.js';
export { assignmentConditions, assignmentRows, assignmentStatusPatch, type AssignmentRow } from './fhpa-status.js';
