export * from './free-port.js';
export * from './suite.js';
