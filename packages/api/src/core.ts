// `@flotilla/api/core`: what a process that reads objects but never admits them needs (the affinity scheduler, the
// status writer). Importing it builds none of admission's zod schemas, which `@flotilla/api` builds for every kind
// at load; its values are the same ones `@flotilla/api` exports.
export { canonicalQuantity, formatQuantity, isQuantity, parseQuantity, QuantityError } from './quantity.js';
export {
  allocatableModelings,
  DEFAULT_RESOURCE_MODELS,
  effectiveResourceModels,
  maxReplicasByResourceModels,
  modelMinimums,
  resourceUnits,
  type ModeledNode,
  type ModelMinimums,
  type RequestUnits,
} from './resource-models.js';
export { isPlainObject, type KubeObject, type ObjectReference } from './object.js';
export { matchesLabelSelector, matchesRequirement } from './label-selector.js';
export {
  APPLIED_PLACEMENT_ANNOTATION,
  FederatedHpaAnnotations,
  formatMemberLimits,
  MemberLimitsError,
  parseMemberLimits,
  type MemberLimits,
} from './federated-hpa-annotations.js';
export { getCondition, isConditionTrue, type Condition } from './conditions.js';
export { formatTime } from './kube-time.js';
export { applyStatusPatch, mergeConditions, type PatchCondition } from './status-patch.js';
export {
  CLUSTER_STATUS_NEVER_UPDATED,
  CLUSTER_STATUS_UNKNOWN,
  isClusterHealthExpiryReason,
} from './kinds/cluster-health.js';
export { kindOf, listKinds, resolveKind, type KindDefinition, type KindInfo } from './kind-table.js';
export { UnknownKindError, WrongApiVersionError } from './errors.js';
