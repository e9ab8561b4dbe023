export {
  foldReplicaTrail,
  initialTrailState,
  resumeReplicaTrail,
  formatTrailField,
  formatTrailValue,
  REPLICAS_APPLIED,
  type HpaLimits,
  type PartialLimits,
  type ReplicasAppliedData,
  type TrailEntry,
  type TrailEvent,
  type TrailField,
  type TrailState,
  type TrailValue,
} from './fold.js';
export {
  TRAIL_AUTOSCALER_KINDS,
  TRAIL_EVENT_TYPES,
  trailAddresses,
  type AutoscalerLike,
  type TrailAddress,
  type WorkloadRef,
} from './addresses.js';
