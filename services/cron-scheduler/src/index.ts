export {
  applyExecutions,
  type AppliedExecutions,
  type ApplyExecutionsInput,
  type ExecutionOutcome,
} from './apply-executions.js';
export { configSchema } from './config.js';
export {
  CONTROLLER_NAME,
  CRON_KIND,
  CronController,
  type CronControllerOptions,
  type ExecutionReport,
} from './controller.js';
export {
  alreadyApplied,
  EXECUTIONS_ANNOTATION,
  FENCING_ANNOTATION,
  fenceOf,
  readMarkers,
  recordMarkers,
  withFence,
  type ExecutionMarkers,
} from './execution-markers.js';
export { needsNextScheduled } from './next-scheduled.js';
export { CRON_STATE_KIND, RuleStateStore, type CronObjectState, type StoredCronState } from './rule-state-store.js';
