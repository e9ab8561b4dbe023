export * from './protocol.js';
export * from './api-error.js';
export * from './gateway-client.js';
