export * from './controller.js';
export * from './decision-event.js';
export * from './taints.js';
