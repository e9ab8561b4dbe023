/**
 * @flotilla/bus: the NATS JetStream bus every service talks over (subjects, CloudEvents, the object and status
 * buckets, event consumers, typed errors). Its public surface, named here; the modules' other exports are internal.
 */
export { busNames, InvalidPrefixError, type BusNames } from './names.js';
export {
  CLUSTER_SCOPE_TOKEN,
  escapeToken,
  eventFilter,
  eventSubject,
  parseEventSubject,
  SubjectError,
  unescapeToken,
  type EventAddress,
} from './subjects.js';
export {
  cloudEvent,
  EVENT_TYPE_PREFIX,
  eventTypeOf,
  objectDeletedEvent,
  type CloudEvent,
  type NewEvent,
  type ObjectDeletion,
} from './cloud-event.js';
export {
  AlreadyExistsError,
  busTransientFailure,
  BusUnavailableError,
  ConflictError,
  isConsumerNotFound,
  isCredentialsRefused,
  isNoMessageFound,
  isStreamNameInUse,
  isStreamNotFound,
  isAlreadyExists,
  isUndecodable,
  isWrongLastSequence,
  JetStreamErrorCodes,
  ReadIncompleteError,
  UndecodableValueError,
  type BusTransientFailure,
  type UndecodableReason,
} from './errors.js';
export {
  connectBus,
  destroyBus,
  isPermissionsViolation,
  isStreamsNotProvisioned,
  natsServersAndAuth,
  requiredStreams,
  StreamsNotProvisionedError,
  type Bus,
  type BusOptions,
} from './connect.js';
export {
  DEFAULT_METRICS_MAX_AGE_MS,
  DEFAULT_RETENTION,
  ensureEventsStream,
  ensureMetricsStream,
  type EventsRetention,
} from './provision.js';
export {
  createJson,
  createJsonIfNew,
  decodeJson,
  deleteKey,
  encodeJson,
  getJson,
  lastRevisionOf,
  kvSource,
  listJson,
  MAX_DECODED_JSON_BYTES,
  ownedString,
  updateJson,
  type Snapshot,
  type Versioned,
} from './kv-json.js';
export {
  consumeEvents,
  ORDER_ACROSS_MAX_WAIT_MS,
  lastEvent,
  lostBefore,
  newestSeqOn,
  publishEvent,
  readEvents,
  readUpTo,
  subjectOf,
  type ConsumeOptions,
  type DeliveredEvent,
  type LostDeliveries,
  type PublishResult,
  type ReadOptions,
  type ReadUpToOptions,
  type SetAside,
  type Subscription,
} from './events.js';
export { KvWatchInclude, type KV } from '@nats-io/kv';
export { busOptionsFromEnv, type BusEnv } from './config.js';
export { EventTypes } from './event-types.js';
export { BucketRevisions, type BucketRevisionsOptions } from './bucket-revisions.js';
export { RevisionWaiters } from './revision-waiters.js';
export {
  inboxPrefixOf,
  memberPermissions,
  natsAuthorization,
  natsGrantsTable,
  prefixStreams,
  servicePermissions,
  type NatsAuthorizationOptions,
  type SubjectPermissions,
} from './nats-permissions.js';
