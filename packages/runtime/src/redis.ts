import { Redis, type RedisOptions } from 'ioredis';
import { RedisUnavailableError } from './errors.js';
import type { ConnectionListener } from './connection-gate.js';
import { redactUrl } from './redact.js';
import { isRedisCredentialsRefused } from './errors.js';
import { retryAtStartup, type StartupRetryOptions } from './startup-retry.js';

/** Redis through Sentinel: where the Sentinels are and which primary to ask them for. */
export interface RedisSentinelOptions {
  sentinels: ReadonlyArray<{ host: string; port: number }>;
  /** The Sentinels' name of the primary (sentinel.conf's `sentinel monitor NAME ...`). */
  name: string;
  /** The Sentinels' own password, when they have one. */
  password?: string | undefined;
}

/** The Sentinel settings of a service's configuration (REDIS_SENTINELS and its companions), if it has Sentinels. */
export function redisSentinelFromEnv(env: {
  REDIS_SENTINELS?: ReadonlyArray<{ host: string; port: number }> | undefined;
  REDIS_SENTINEL_NAME: string;
  REDIS_SENTINEL_PASSWORD?: string | undefined;
}): RedisSentinelOptions | undefined {
  if (!env.REDIS_SENTINELS || env.REDIS_SENTINELS.length === 0) return undefined;
  return { sentinels: env.REDIS_SENTINELS, name: env.REDIS_SENTINEL_NAME, password: env.REDIS_SENTINEL_PASSWORD };
}

/** What a connection is to, for logs and errors: the URL without credentials, or the Sentinels and the name. */
export function describeRedis(url: string, sentinel?: RedisSentinelOptions): string {
  if (!sentinel) return redactUrl(url);
  return `sentinel ${sentinel.name} at ${sentinel.sentinels.map((s) => `${s.host}:${s.port}`).join(',')}`;
}

export interface CreateRedisOptions {
  /**
   * Connect through these Sentinels to the primary they name, following it when they promote a replica; the URL
   * then gives only the password and database. BullMQ's connections (Redis.duplicate) keep it.
   */
  sentinel?: RedisSentinelOptions | undefined;
  /** Used when the URL carries none (REDIS_PASSWORD); a password in the URL wins. */
  password?: string | undefined;
  /**
   * BullMQ workers block on Redis and refuse connections that give up on a command after N retries,
   * so their connections need `maxRetriesPerRequest: null`.
   */
  forBullmq?: boolean;
  /** Shown in CLIENT LIST, which helps find who holds a connection. */
  connectionName?: string;
  /** Further ioredis options; the ones above win. */
  extra?: RedisOptions;
  /** Told once when the connection drops and once when it is ready again (see connectionGate). */
  onConnection?: ConnectionListener | undefined;
}

export function createRedis(url: string, opts: CreateRedisOptions = {}): Redis {
  const options: RedisOptions = { ...opts.extra };
  if (opts.password !== undefined && opts.password !== '' && !urlHasPassword(url)) options.password = opts.password;
  if (opts.forBullmq) options.maxRetriesPerRequest = null;
  if (opts.connectionName !== undefined) options.connectionName = opts.connectionName;
  if (!opts.sentinel) return new Redis(url, options);
  const u = new URL(url);
  const db = Number(u.pathname.replace(/^\//, '') || '0');
  return new Redis({
    ...options,
    sentinels: opts.sentinel.sentinels.map((s) => ({ host: s.host, port: s.port })),
    name: opts.sentinel.name,
    ...(opts.sentinel.password ? { sentinelPassword: opts.sentinel.password } : {}),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(Number.isInteger(db) && db > 0 ? { db } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {}, enableTLSForSentinelMode: true } : {}),
    // A primary that was demoted (Sentinel promoted its replica) answers writes with READONLY: reconnect, which asks
    // the Sentinels again, and retry the command on the new primary.
    reconnectOnError: (err) => (err.message.startsWith('READONLY') ? 2 : false),
    // ioredis' default gives up on the Sentinels after a few rounds; a service waits for them as it waits for Redis.
    sentinelRetryStrategy: (times) => Math.min(times * 100, 1000),
  });
}

function urlHasPassword(url: string): boolean {
  try {
    return new URL(url).password !== '';
  } catch {
    return false;
  }
}

/**
 * Closes a connection politely (QUIT), falling back to a hard disconnect when the server is not
 * reachable, so shutdown never hangs on a missing Redis. Resolves once the connection has ended.
 */
/** Connections being closed on purpose: their end is not an outage. */
const closing = new WeakSet<Redis>();

export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'end') return;
  closing.add(redis);
  const ended = new Promise<void>((resolve) => {
    const t = setTimeout(resolve, 2000);
    redis.once('end', () => {
      clearTimeout(t);
      resolve();
    });
  });
  if (redis.status === 'ready') {
    try {
      await redis.quit();
    } catch {
      redis.disconnect();
    }
  } else {
    redis.disconnect();
  }
  await ended;
}

/**
 * Opens a connection and proves it with a PING, so that a service whose Redis is unreachable stops at start-up with
 * a clear error instead of queueing commands forever (ioredis' default).
 */
export async function connectRedis(
  url: string,
  opts: CreateRedisOptions & { timeoutMs?: number } = {},
): Promise<Redis> {
  const redis = createRedis(url, opts);
  // Connection errors during the attempt are this function's to report, as one clear error.
  const quiet = () => undefined;
  redis.on('error', quiet);
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      redis.ping(),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${opts.timeoutMs ?? 3000} ms`)),
          opts.timeoutMs ?? 3000,
        );
      }),
    ]);
    watchRedis(redis, describeRedis(url, opts.sentinel), opts.onConnection);
    return redis;
  } catch (cause) {
    redis.disconnect();
    throw new RedisUnavailableError(describeRedis(url, opts.sentinel), { cause });
  } finally {
    clearTimeout(timer);
    redis.off('error', quiet);
  }
}

/**
 * Follows a connection's outages. ioredis emits `error` on every failed reconnect attempt and prints "Unhandled error
 * event" to stderr when nothing listens: here something always listens, and an outage is reported once each way.
 */
export function watchRedis(redis: Redis, server: string, listener: ConnectionListener | undefined): void {
  let down = false;
  let lastError: string | undefined;
  const drop = () => {
    if (down || closing.has(redis)) return;
    down = true;
    listener?.down({ server, error: lastError });
  };
  redis.on('error', (err: Error) => {
    lastError = err.message;
    drop();
  });
  redis.on('close', drop);
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    lastError = undefined;
    listener?.up({ server });
  });
}

/**
 * connectRedis for a service's first connection: retried for the budget (retryAtStartup), refused credentials thrown
 * at once, a connection made after a stop closed again.
 */
export function connectRedisAtStartup(
  url: string,
  opts: CreateRedisOptions & { timeoutMs?: number },
  retry: Omit<StartupRetryOptions<Redis>, 'isPermanent' | 'dispose'>,
): Promise<Redis> {
  return retryAtStartup(() => connectRedis(url, opts), {
    ...retry,
    isPermanent: isRedisCredentialsRefused,
    dispose: closeRedis,
  });
}
