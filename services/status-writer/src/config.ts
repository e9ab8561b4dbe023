import { baseConfigSchema, envInt } from '@flotilla/runtime';
import { TRAIL_PROJECTOR_DEFAULTS } from './trail-projector.js';

/** The status writer's environment: the base variables plus its fold's concurrency (docs/configuration.md). */
export const configSchema = baseConfigSchema.extend({
  /**
   * Objects folded at once; the events of one object are always folded one at a time, in stream order, and a binding's
   * report only after the cluster reports published before it.
   */
  STATUS_WRITER_CONCURRENCY: envInt({ default: 64, min: 1 }),
  /**
   * A workload's replica-trail decisions are projected (`explain replicas` reads the projection) once this many
   * gathered since its last projection; fewer are folded by the reader from the stream (TrailProjector).
   */
  TRAIL_PROJECT_AFTER_DECISIONS: envInt({ default: TRAIL_PROJECTOR_DEFAULTS.projectAfterDecisions, min: 1 }),
});
