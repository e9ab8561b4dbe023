export { GatewayHandler } from './handler.js';
export { serveNatsApi } from './nats-api.js';
export { serveHttpApi, review, InsecureBindError } from './http-api.js';
export { ApiTokens, TokenFileError, type Role } from './api-tokens.js';
export { toApiError } from './errors.js';
export { configSchema } from './config.js';
