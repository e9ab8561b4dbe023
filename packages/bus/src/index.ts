export * from './names.js';
export * from './subjects.js';
export * from './cloud-event.js';
export * from './errors.js';
export * from './connect.js';
export * from './provision.js';
export * from './kv-json.js';
export * from './events.js';
export { KvWatchInclude, type KV } from '@nats-io/kv';
