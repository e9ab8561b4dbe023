export * from './suite.js';
export * from './webhook-pki.js';
export { SEED_LOAD, seedLoad, seededLoadArgs, seededWorkingDay } from './seed-load.js';
