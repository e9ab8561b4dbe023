import { natsUserEntry, SERVICE_NAMES, type ServiceName } from '@flotilla/catalogue';
import type { BusOptions } from './connect.js';
import type { BusConnectionListener } from './connection-watch.js';

/** The environment variables every service reads for NATS (validated by the runtime's base config schema). */
export interface BusEnv {
  /** One NATS URL or a comma-separated list (the servers of a cluster). */
  NATS_URL: string;
  /** Replicas of the streams and buckets (unset: 1 on a single server, 3 on a cluster). */
  NATS_REPLICAS?: number | undefined;
  /** How long a JetStream request waits for its answer (BusOptions.requestTimeoutMs). */
  NATS_TIMEOUT_MS?: number | undefined;
  NATS_USER?: string | undefined;
  NATS_PASSWORD?: string | undefined;
  NATS_TOKEN?: string | undefined;
  FLOTILLA_PREFIX: string;
  EVENTS_MAX_AGE_MS?: number | undefined;
  EVENTS_MAX_BYTES?: number | undefined;
}

/**
 * A service's connection options. Only the service the catalogue names as JetStream's administrator (the gateway)
 * brings the streams' retention and replicas up to date; the others create what is missing where the server lets
 * them, and otherwise wait for it.
 */
export function busOptionsFromEnv(env: BusEnv, name: string, onConnection?: BusConnectionListener): BusOptions {
  const service = (SERVICE_NAMES as readonly string[]).includes(name) ? (name as ServiceName) : undefined;
  return {
    administer: service === undefined || natsUserEntry(service).administers === true,
    url: env.NATS_URL,
    replicas: env.NATS_REPLICAS,
    requestTimeoutMs: env.NATS_TIMEOUT_MS,
    user: env.NATS_USER,
    password: env.NATS_PASSWORD,
    token: env.NATS_TOKEN,
    prefix: env.FLOTILLA_PREFIX,
    name,
    onConnection,
    retention: {
      ...(env.EVENTS_MAX_AGE_MS !== undefined ? { maxAgeMs: env.EVENTS_MAX_AGE_MS } : {}),
      ...(env.EVENTS_MAX_BYTES !== undefined ? { maxBytes: env.EVENTS_MAX_BYTES } : {}),
    },
  };
}
