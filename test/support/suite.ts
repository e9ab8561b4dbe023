import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { DEFAULT_STOP_GRACE_MS, Suite } from '@flotilla/launcher';
import { NATS_URL, REDIS_URL, scaled, uniquePrefix } from '@flotilla/testkit';
import { connectBus, destroyBus } from '@flotilla/bus';
import { Redis } from 'ioredis';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface RunningSuite {
  suite: Suite;
  env: Record<string, string>;
  logs: string[];
  stop(): Promise<void>;
}

/**
 * Starts the built services as separate processes on a fresh prefix. `stop` sends SIGTERM, checks every process
 * exited cleanly, and removes the prefix's streams and buckets. `serviceEnv` adds variables for one service only
 * (the gateway listens on an ephemeral port unless it names GATEWAY_API_PORT).
 */
export async function startSuite(
  services: string[],
  extraEnv: Record<string, string> = {},
  serviceEnv: Record<string, Record<string, string>> = {},
  opts: { readyTimeoutMs?: number } = {},
): Promise<RunningSuite> {
  const prefix = uniquePrefix('e2e');
  const env = { NATS_URL, REDIS_URL, FLOTILLA_PREFIX: prefix, LOG_LEVEL: 'info', LEADER_LEASE_MS: '2000', ...extraEnv };
  const logs: string[] = [];
  const suite = new Suite({
    root: ROOT,
    services,
    env,
    serviceEnv,
    onOutput: (s, l) => logs.push(`[${s}] ${l}`),
    // A service's clean stop (drains, leases released) is slower on a busy machine: a SIGKILL after the launcher's
    // 10 s would read as an unclean exit (test/dashboard.e2e saw the gateway's exit code null beside two busy loops).
    stopGraceMs: scaled(DEFAULT_STOP_GRACE_MS),
    ...opts,
  });
  try {
    await suite.start();
  } catch (err) {
    await suite.stop();
    throw new Error(`${(err as Error).message}\n${logs.slice(-30).join('\n')}`);
  }
  return {
    suite,
    env,
    logs,
    async stop() {
      await suite.stop();
      const bus = await connectBus({ url: NATS_URL, prefix });
      await destroyBus(bus);
      await bus.close();
      await removeRedisKeys(prefix);
    },
  };
}

/** Deletes every Redis key a run's prefix owns (leases, fencing counters, queues). */
export async function removeRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    for (const pattern of [`${prefix}:*`, `*:${prefix}:*`, `${prefix}-*`]) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        cursor = next;
        if (keys.length) await redis.del(...keys);
      } while (cursor !== '0');
    }
  } finally {
    redis.disconnect();
  }
}

/** The pid inside a leader lease's holder id (`<host>-<pid>-<random>`), to find the process to kill. */
export async function leaderPid(prefix: string, service: string): Promise<number | undefined> {
  const redis = new Redis(REDIS_URL);
  try {
    const holder = await redis.get(`${prefix}:leader:${service}`);
    const m = holder ? /-(\d+)-[0-9a-f]+$/.exec(holder) : null;
    return m ? Number(m[1]) : undefined;
  } finally {
    redis.disconnect();
  }
}
