export * from './controller.js';
export * from './decision-event.js';
export * from './cluster-taints/decide.js';
export { configSchema } from './config.js';
