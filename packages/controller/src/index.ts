// The controller kit's public surface, named one by one (the work queue's and the metrics' internals stay inside).
export {
  type BusConnections,
  type BusServiceDefinition,
  type ConnectionsOf,
  type OwnRedis,
  runBusService,
  type ServiceDeps,
} from './bus-service.js';
export type { ControllerLogger } from './controller-logger.js';
export { ControllerMetrics } from './controller-metrics.js';
export {
  CONTROLLER_DEFAULTS,
  type Controller,
  type ControllerDefinition,
  ControllerDefinitionError,
  type ControllerQueue,
  type DelayedJobs,
  defineController,
  type FailureEvents,
  type FailureObject,
  type InvolvesObjects,
  involvedObjectsOf,
  type Watch,
  type WatchEvent,
  type WatchSource,
} from './define-controller.js';
export { MAX_TIMER_MS } from './max-timer.js';
export { type ReconcileOutcome, type ReconcileResult, WorkQueue, type WorkQueueObserver } from './work-queue.js';
