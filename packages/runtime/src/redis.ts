import { Redis, type RedisOptions } from 'ioredis';
import { RedisUnavailableError } from './errors.js';
import { redactUrl } from './redact.js';

export interface CreateRedisOptions {
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
}

export function createRedis(url: string, opts: CreateRedisOptions = {}): Redis {
  const options: RedisOptions = { ...opts.extra };
  if (opts.password !== undefined && opts.password !== '' && !urlHasPassword(url)) options.password = opts.password;
  if (opts.forBullmq) options.maxRetriesPerRequest = null;
  if (opts.connectionName !== undefined) options.connectionName = opts.connectionName;
  return new Redis(url, options);
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
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'end') return;
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
    return redis;
  } catch (cause) {
    redis.disconnect();
    throw new RedisUnavailableError(redactUrl(url), { cause });
  } finally {
    clearTimeout(timer);
    redis.off('error', quiet);
  }
}
