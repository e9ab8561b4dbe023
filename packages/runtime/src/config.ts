import { z } from 'zod';
import { envEnum, envHostPortList, envInt, envPort, envString, envUrl, envUrlList } from './env-fields.js';
import { ConfigError, type ConfigIssue } from './errors.js';
import { displayValue } from './redact.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * The variables every service reads. Services add their own with `baseConfigSchema.extend({...})`,
 * preferably with the builders of env-fields.ts so error messages stay uniform.
 */
export const baseConfigSchema = z.object({
  /**
   * One URL or a comma-separated list (the servers of a NATS cluster; the client fails over between them). May carry
   * `user:pass@` or `token@` (logged redacted: `redactUrl`).
   */
  NATS_URL: envUrlList({ protocols: ['nats', 'tls', 'ws', 'wss'], default: 'nats://127.0.0.1:4222' }),
  /** Replicas of the streams and buckets a service creates; unset: 1 on a single server, 3 on a cluster. */
  NATS_REPLICAS: envInt({ min: 1, max: 5 }),
  /**
   * How long a JetStream request waits for its answer. On a cluster, a stream electing a new leader takes no writes:
   * a write is sent again, as the same message, every half second within this time, and is answered soon after the
   * new leader is; a caller whose write still timed out asks again a second later.
   */
  NATS_TIMEOUT_MS: envInt({ default: 5000, min: 500, max: 60_000 }),
  /** The NATS user (deploy/README.md lists each service's grants); never logged with its password. */
  NATS_USER: envString(),
  /** NATS_USER's password (never logged). */
  NATS_PASSWORD: envString(),
  /** A NATS token instead of a user and password (never logged). */
  NATS_TOKEN: envString(),
  /** The Redis server. May carry `:password@` (logged redacted: `redactUrl`). */
  REDIS_URL: envUrl({ protocols: ['redis', 'rediss'], default: 'redis://127.0.0.1:6379' }),
  /** The Redis password, when REDIS_URL carries none (never logged). */
  REDIS_PASSWORD: envString(),
  /**
   * Redis through Sentinel: the Sentinels' `host:port` list. Set, it replaces REDIS_URL's host and port (the URL still
   * gives the password and database): clients ask the Sentinels for the primary of REDIS_SENTINEL_NAME and follow it
   * when they promote a replica.
   */
  REDIS_SENTINELS: envHostPortList(),
  /** The name of the primary the Sentinels watch (`sentinel monitor NAME ...`). */
  REDIS_SENTINEL_NAME: envString({
    default: 'mymaster',
    pattern: /^[A-Za-z0-9._-]+$/,
    patternHint: 'a Sentinel master name',
  }),
  /** The Sentinels' own password (`requirepass` of sentinel.conf), when they have one. */
  REDIS_SENTINEL_PASSWORD: envString(),
  /** Namespaces streams, buckets, queues and keys so several installations can share servers. */
  FLOTILLA_PREFIX: envString({
    default: 'flotilla',
    pattern: /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/,
    patternHint: "lower-case letters, digits and '-' (1-63 characters, not starting or ending with '-')",
  }),
  /** pino's level for the JSON log lines on stdout. */
  LOG_LEVEL: envEnum(LOG_LEVELS, 'info'),
  /** Health and metrics port; 0 (the default) takes an ephemeral port, which is logged at start. */
  HTTP_PORT: envPort(0),
  /** Where `/healthz`, `/readyz` and `/metrics` listen. */
  HTTP_HOST: envString({ default: '127.0.0.1' }),
  /** The leader lease in Redis; a leader that cannot renew stops acting before the lease can pass to another replica. */
  LEADER_LEASE_MS: envInt({ default: 10_000, min: 1000 }),
  /**
   * The events stream's limits: the oldest events and, past the byte limit, the oldest first, are dropped (JetStream's
   * discard-old), so the log cannot fill the server and starve the objects. Status is a fold, so it survives them.
   */
  EVENTS_MAX_AGE_MS: envInt({ default: 7 * 24 * 3600 * 1000, min: 60_000 }),
  /** The events stream's size limit, past which the oldest events are dropped (see EVENTS_MAX_AGE_MS). */
  EVENTS_MAX_BYTES: envInt({ default: 512 * 1024 * 1024, min: 1024 * 1024 }),
  /** How often a service checks that its streams and buckets still exist on NATS (and re-creates them). */
  PROVISION_CHECK_MS: envInt({ default: 5000, min: 100 }),
  /**
   * How long a starting service keeps trying each of its first connections (NATS, Redis, the lease's Redis) before it
   * exits 1 naming the server: servers started beside it answer some seconds later (see startup-retry.ts). 0: one
   * attempt.
   */
  STARTUP_CONNECT_MS: envInt({ default: 60_000, min: 0 }),
  /** How far past its live data V8 may grow the heap, in percent (0: V8's own policy, which is up to fourfold). */
  HEAP_GROWTH_PERCENT: envInt({ default: 25, min: 0, max: 1000 }),
});

export type BaseConfig = z.output<typeof baseConfigSchema>;
/** A service's configuration schema: the base variables and the service's own (`baseConfigSchema.extend`). */
export type ConfigSchema = z.ZodType<BaseConfig>;
/** The configuration a schema yields, for code that takes a service's schema without importing zod. */
export type ConfigOf<S extends ConfigSchema> = z.output<S>;

export type EnvSource = Readonly<Record<string, string | undefined>>;

/**
 * Validates the environment against `schema` and returns the typed configuration.
 * An empty variable counts as unset (so `FOO=` in a manifest falls back to the default).
 * Throws `ConfigError` naming every bad variable, with secrets in the offending values hidden.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: EnvSource = process.env): z.output<S> {
  const input: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && value !== '') input[key] = value;
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data as z.output<S>;
  const issues: ConfigIssue[] = result.error.issues.map((issue) => {
    const variable = issue.path.length > 0 ? issue.path.map(String).join('.') : '(environment)';
    const top = issue.path[0];
    const raw = typeof top === 'string' ? input[top] : undefined;
    return { variable, message: issue.message, value: displayValue(variable, raw) };
  });
  throw new ConfigError(issues);
}
