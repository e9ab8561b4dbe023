import type { Logger } from 'pino';
import type { ReadinessGates } from './readiness-gates.js';

/** What a connection reports: down once per outage, up once when it is back. */
export interface ConnectionListener {
  down(info: { server: string; error?: string | undefined }): void;
  up(info: { server: string; outageMs?: number | undefined }): void;
}

/**
 * A connection's outages as one structured log line each way (warn when it drops, info with the outage's length when
 * it is back) and as a readiness gate: a replica without its connection is not ready, leader or standby.
 */
export function connectionGate(gates: ReadinessGates, logger: Logger, name: string): ConnectionListener {
  let downSince: number | undefined;
  return {
    down({ server, error }) {
      if (downSince !== undefined) return;
      downSince = Date.now();
      gates.set(name, false, `disconnected from ${server}`);
      logger.warn({ connection: name, server, ...(error ? { error } : {}) }, `${name} connection lost`);
    },
    up({ server, outageMs }) {
      const measured = downSince === undefined ? outageMs : Date.now() - downSince;
      downSince = undefined;
      gates.set(name, true);
      logger.info({ connection: name, server, outageMs: measured }, `${name} connection restored`);
    },
  };
}
