export { main } from './main.js';
export type { CliIo } from './context.js';
export { replicaTrail } from './commands/explain.js';
export { lastDecision } from './commands/describe.js';
export { eventMessage } from './commands/event-message.js';
export { objectRows } from './output/format.js';
