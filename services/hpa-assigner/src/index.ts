export { configSchema } from './config.js';
export {
  CONTROLLER_NAME,
  FEDERATED_HPA_KIND,
  FederatedHpaController,
  type FederatedHpaControllerOptions,
} from './federated-hpa-controller.js';
export { FEDERATED_HPA_DEFAULTS, type ControllerLogger, type MoveReport } from './pass.js';
export { FederatedHpaEventTypes } from './fhpa-events.js';
export { bindingNameOf, memberHpaBinding, memberHpaTemplate } from './member-objects.js';
export {
  EHPA_CONTROLLER_NAME,
  EffectiveHpaController,
  type EffectiveHpaControllerOptions,
} from './effective-hpa-controller.js';
export { EFFECTIVE_HPA_KIND, EffectiveHpaEventTypes } from './ehpa-events.js';
export { EhpaForecasts } from './ehpa-forecasts.js';
export {
  REPLICA_OWNER_CONFLICT_RESOLVED,
  REPLICA_OWNERS_CONTROLLER_NAME,
  ReplicaOwnersController,
  type ReplicaOwnersControllerOptions,
} from './replica-owners-controller.js';
