export * from './sample.js';
export * from './errors.js';
export * from './range-response.js';
export * from './query-template.js';
export * from './prometheus-source.js';
export * from './jetstream-history.js';
