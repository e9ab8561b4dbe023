export * from './object.js';
export * from './errors.js';
export * from './object-store.js';
export * from './status-store.js';
export * from './informer.js';
export * from './kube-events.js';
export * from './informers.js';
export * from './informer-metrics.js';
