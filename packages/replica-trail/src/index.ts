export {
  foldReplicaTrail,
  formatTrailField,
  formatTrailValue,
  REPLICAS_APPLIED,
  type HpaLimits,
  type PartialLimits,
  type ReplicasAppliedData,
  type TrailEntry,
  type TrailEvent,
  type TrailField,
  type TrailValue,
} from './fold.js';
export { trailAddresses, type AutoscalerLike, type TrailAddress, type WorkloadRef } from './addresses.js';
