import type { Logger } from 'pino';
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
}

/**
 * The shell every leader-elected service uses: connect to Redis (failing fast), compete for the lease, run the
 * work while leader. Returns a function that stops the work, releases the lease and closes the connection.
 */
export async function startLeaderWork(o: LeaderWorkOptions): Promise<() => Promise<void>> {
  const redis = await connectRedis(o.redisUrl, { password: o.redisPassword, connectionName: o.key });
  const elector = new LeaderElector({ redis, key: o.key, leaseMs: o.leaseMs, logger: o.logger });
  const stopWork = runWhileLeader(
    elector,
    async (signal, token) => {
      const stop = await o.work(token);
      if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
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
