import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { leaderGauge } from './leader-metrics.js';
import { LeaderElector, runWhileLeader } from './leader.js';
import { closeRedis, connectRedis } from './redis.js';

export interface LeaderWorkOptions {
  redisUrl: string;
  redisPassword?: string | undefined;
  /** The lease key, conventionally `<prefix>:leader:<service>[:<scope>]`. */
  key: string;
  leaseMs: number;
  logger: Logger;
  /**
   * Starts the work of one term and returns how to stop it. Called when this replica is elected; the stop
   * function runs when it is demoted (or the service stops), before a new term's work can start.
   */
  work: (token: number) => Promise<() => Promise<void>>;
  /** Where `flotilla_leader` (1 while this replica's work runs) is reported; the service's registry. */
  registry?: Registry | undefined;
}

/**
 * The shell every leader-elected service uses: connect to Redis (failing fast), compete for the lease, run the
 * work while leader. Returns a function that stops the work, releases the lease and closes the connection.
 */
export async function startLeaderWork(o: LeaderWorkOptions): Promise<() => Promise<void>> {
  const redis = await connectRedis(o.redisUrl, { password: o.redisPassword, connectionName: o.key });
  const elector = new LeaderElector({ redis, key: o.key, leaseMs: o.leaseMs, logger: o.logger });
  const leading = o.registry ? leaderGauge(o.registry) : undefined;
  const stopWork = runWhileLeader(
    elector,
    async (signal, token) => {
      const stop = await o.work(token);
      leading?.set(1);
      try {
        if (!signal.aborted)
          await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      } finally {
        leading?.set(0);
      }
      await stop();
    },
    { logger: o.logger },
  );
  await elector.start();
  return async () => {
    await stopWork();
    await elector.stop();
    await closeRedis(redis);
  };
}
