export * from './reducers.js';
export * from './status-writer.js';
export * from './replay.js';
export * from './default-reducers.js';
export * from './fold-lag.js';
export { foldEvents, type FoldEventsOptions, type FoldLogger } from './fold-events.js';
export { TRAIL_PROJECTOR_DEFAULTS, TrailProjector, type TrailProjectorOptions } from './trail-projector.js';
export { configSchema } from './config.js';
