export * from './work-queue.js';
