export * from './controller.js';
export * from './reconcile-binding.js';
export * from './taints.js';
