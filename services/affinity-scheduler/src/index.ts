export * from './controller.js';
export * from './decision-event.js';
export * from './taints.js';
export { configSchema } from './config.js';
