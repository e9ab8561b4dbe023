export { CONTROLLER_NAME, REBALANCER_KIND, rebalancerEvent, workloadTriggeredEvent } from './cloud-events.js';
export { configSchema } from './config.js';
export { RebalancerController, type ControllerLogger, type RebalancerControllerOptions } from './controller.js';
export { RebalanceRetryError } from './errors.js';
export { FailBack, type FailBackOptions } from './fail-back.js';
