export * from './work-queue.js';
export * from './spread-sweep.js';
export * from './controller-metrics.js';
export * from './controller-logger.js';
export * from './max-timer.js';
export * from './define-controller.js';
export * from './bus-service.js';
