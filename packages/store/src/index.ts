/**
 * @flotilla/store: objects and status over the bus's buckets (optimistic concurrency on the KV revision), informers,
 * Kubernetes events, member usage and the replica-trail projection. Its public surface, named here; the modules'
 * other exports are internal.
 */
export {
  byNamespaceAndName,
  describeRef,
  hasSpec,
  objectKey,
  refFromKey,
  refOf,
  type ObjectRef,
  type StoredObject,
} from './object.js';
export { isNotFound, NotFoundError, StaleResourceVersionError } from './errors.js';
export {
  ObjectStore,
  type ApplyOptions,
  type ApplyOutcome,
  type CachedObject,
  type ObjectIdentity,
  type StoreOptions,
  withVersion,
} from './object-store.js';
export {
  foldChangesNothing,
  STATUS_STORE_DEFAULTS,
  StatusStore,
  type FoldStep,
  type StatusRecord,
  type StatusStoreOptions,
} from './status-store.js';
export {
  Informer,
  INFORMER_DEFAULTS,
  type InformerBucket,
  type InformerEvent,
  type InformerHandler,
  type InformerLogger,
  type InformerOptions,
  type Projection,
  type ReadinessSink,
  type Subscription,
} from './informer.js';
export { KubeEventStore, type KubeEvent, type KubeEventInput, type StoredKubeEvent } from './kube-events.js';
export {
  InformerProjectionConflictError,
  Informers,
  openInformers,
  type CachedKind,
  type InformersOptions,
} from './informers.js';
export {
  projectReplicaTrail,
  readReplicaTrail,
  trailSubjects,
  type ProjectionResult,
  type TrailProjectionHead,
  type TrailRead,
} from './trail-projection.js';
export { InformedSpecs, type InformedSpecsOptions, type SpecLister } from './informed-specs.js';
export { REPLICA_WRITER_KINDS, replicaWriterSpecs, SPEC_CATCH_UP_MS } from './replica-writer-specs.js';
export { bindingKeyOfUsageKey, memberUsageKey, memberUsageRef, type MemberUsage } from './member-usage.js';
export { allWithStatus, withStatus, type WithStatus } from './with-status.js';
export { deepFreeze, SHARED_VALUES_LIMIT, SharedValues } from './shared-values.js';
