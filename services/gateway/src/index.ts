export { GatewayHandler } from './handler.js';
export { serveNatsApi } from './nats-api.js';
export { serveHttpApi, review } from './http-api.js';
export { toApiError } from './errors.js';
