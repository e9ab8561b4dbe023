import { randomBytes } from 'node:crypto';
import { scaled, testTimeScale } from './time-scale.js';

export { freeTcpPort } from '@flotilla/ports';
export {
  PrivateRedis,
  startOnFreePort,
  type PrivateRedisOptions,
  type StartableServer,
} from './private-redis.js';
export {
  PrivateNatsCluster,
  PrivateRedisSentinel,
  redisCommand,
  type ClusterPorts,
  type PrivateNatsClusterOptions,
  type PrivateRedisSentinelOptions,
} from './ha-servers.js';

/** Server URLs for integration tests: the environment's, else the local defaults. */
export const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A prefix no other run shares, so tests pass against servers that hold other data. */
export function uniquePrefix(label = 't'): string {
  return `${label}-${randomBytes(4).toString('hex')}`;
}

/**
 * Polls `probe` until it returns a value other than undefined, or throws after `timeoutMs` scaled for this machine
 * (FLOTILLA_TEST_TIME_SCALE: a busy machine waits longer, see time-scale.ts).
 */
export async function eventually<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<T> {
  const budgetMs = scaled(timeoutMs);
  const deadline = Date.now() + budgetMs;
  let lastErr: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      lastErr = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${budgetMs} ms${budgetMs !== timeoutMs ? ` (${timeoutMs} ms × time scale ${testTimeScale()})` : ''} waiting for ${what}`,
        { cause: lastErr },
      );
    await new Promise((r) => setTimeout(r, 50));
  }
}
export * from './private-prometheus.js';
export { metricSum } from './metric-sum.js';
export { afterWholeSecond } from './whole-second.js';
export {
  CpuWaitingRecorder,
  cpuWaitingTotalUs,
  MAX_TIME_SCALE,
  TIME_SCALE_ENV,
  measureCpuShare,
  parseTimeScale,
  scaled,
  testTimeScale,
  timeScaleForCpuShare,
  timeScaleForCpuWaiting,
} from './time-scale.js';
export { PrivateNats, type PrivateNatsOptions } from './private-nats.js';
export { startPidReporter, stillRunningAfter } from './orphans.js';
