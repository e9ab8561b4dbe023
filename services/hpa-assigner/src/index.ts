export {
  decideCentralized,
  memberPods,
  type CentralizedDecision,
  type CentralizedInput,
  type MemberReport,
} from './centralized.js';
export { configSchema } from './config.js';
export {
  CONTROLLER_NAME,
  FEDERATED_HPA_KIND,
  FederatedHpaController,
  federationUtilisation,
  recordedAssignment,
  type ControllerLogger,
  type FederatedHpaControllerOptions,
  type MoveReport,
} from './federated-hpa-controller.js';
export {
  assignmentConditions,
  assignmentRows,
  assignmentStatusPatch,
  FederatedHpaEventTypes,
  type AssignmentRow,
  type MemberHpaStatus,
} from './fhpa-status.js';
export {
  bindingNameOf,
  memberHpaAnnotations,
  memberHpaBinding,
  memberHpaTemplate,
  type MemberHpaRecord,
} from './member-objects.js';
export {
  EHPA_CONTROLLER_NAME,
  EffectiveHpaController,
  type EffectiveHpaControllerOptions,
} from './effective-hpa-controller.js';
export { EFFECTIVE_HPA_KIND, EffectiveHpaEventTypes } from './ehpa-events.js';
export { EhpaForecasts } from './ehpa-forecasts.js';
export { memberReports, type AggregatedWorkloadEntry } from './member-reports.js';
