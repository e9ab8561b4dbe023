import type { BusOptions } from './connect.js';

/** The environment variables every service reads for NATS (validated by the runtime's base config schema). */
export interface BusEnv {
  NATS_URL: string;
  NATS_USER?: string | undefined;
  NATS_PASSWORD?: string | undefined;
  NATS_TOKEN?: string | undefined;
  FLOTILLA_PREFIX: string;
}

export function busOptionsFromEnv(env: BusEnv, name: string): BusOptions {
  return {
    url: env.NATS_URL,
    user: env.NATS_USER,
    password: env.NATS_PASSWORD,
    token: env.NATS_TOKEN,
    prefix: env.FLOTILLA_PREFIX,
    name,
  };
}
