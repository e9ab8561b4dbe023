export * from './suite.js';
export * from './webhook-pki.js';
