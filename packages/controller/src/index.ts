/**
 * @flotilla/controller: the controller kit (defineController over informers, its work queue and metrics) and
 * runBusService, the one way a service is run. Its public surface, named here; the modules' other exports are
 * internal.
 */
export {
  WorkQueue,
  type ReconcileOutcome,
  type ReconcileResult,
  type WorkQueueObserver,
  type WorkQueueOptions,
} from './work-queue.js';
export { ControllerMetrics } from './controller-metrics.js';
export type { ControllerLogger } from './controller-logger.js';
export { MAX_TIMER_MS } from './max-timer.js';
export { PassesStoppedError, isPassesStopped } from './reconcile-passes.js';
export {
  CONTROLLER_DEFAULTS,
  CachesBehindError,
  ControllerDefinitionError,
  defineController,
  involvedObjectsOf,
  isCachesBehind,
  type Controller,
  type ControllerDefinition,
  type ControllerQueue,
  type DelayedJobs,
  type FailureEvents,
  type FailureObject,
  type InvolvesObjects,
  type Watch,
  type WatchEvent,
  type WatchSource,
} from './define-controller.js';
export {
  runBusService,
  type BusConnections,
  type BusServiceDefinition,
  type ConnectionsOf,
  type OwnRedis,
  type ServiceDeps,
} from './bus-service.js';
export { fnv1a32, membershipChange, ownerOf, ownsKey } from './shares.js';
export {
  DEFAULT_SHARES_POLL_MS,
  MIN_ACTIVE_LEASE_MS,
  ReplicaShares,
  type ReplicaSharesOptions,
  type SharesChange,
} from './replica-shares.js';
