export * from './free-port.js';
export * from './suite.js';
export * from './webhook-pki.js';
