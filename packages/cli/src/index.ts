export { main } from './main.js';
export type { CliIo } from './context.js';
