import type { Logger } from 'pino';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import { leaderGauge } from './leader-metrics.js';
import { LeaderElector, runWhileLeader, WorkRestartRequested, type Fencing } from './leader.js';
import type { ConnectionListener } from './connection-gate.js';
import { closeRedis, connectRedis, connectRedisAtStartup, type RedisSentinelOptions } from './redis.js';
import type { StartupRetryOptions } from './startup-retry.js';

export interface LeaderWorkOptions {
  redisUrl: string;
  redisPassword?: string | undefined;
  /** Redis through Sentinel (REDIS_SENTINELS): the lease follows the primary the Sentinels name. */
  redisSentinel?: RedisSentinelOptions | undefined;
  /** The lease key, conventionally `<prefix>:leader:<service>[:<scope>]`. */
  key: string;
  leaseMs: number;
  logger: Logger;
  /**
   * Starts the work of one term and returns how to stop it. Called when this replica is elected; the stop
   * function runs when it is demoted (or the service stops), before a new term's work can start. `fencing` is the
   * token the term's writes carry (read at each write: it ends with the term).
   */
  work: (token: number, fencing: Fencing) => Promise<() => Promise<void>>;
  /** Where `flotilla_leader` (1 while this replica's work runs) is reported; the service's registry. */
  registry?: Registry | undefined;
  /** Told of the lease connection's outages. */
  onConnection?: ConnectionListener | undefined;
  /**
   * Keep trying the first connection for a while (its readiness gate is 'redis'); unset, one attempt fails at once.
   */
  startupRetry?: Pick<StartupRetryOptions<Redis>, 'budgetMs' | 'gates' | 'signal'> | undefined;
}

/** Stops the work, releases the lease and closes the connection; `restartWork` starts the current term's work over. */
export interface LeaderWorkHandle {
  (): Promise<void>;
  /**
   * Stops the running term's work and starts it again (after a second), as after a failure: for when what it
   * watches was lost underneath it (a NATS restarted empty). Nothing happens on a standby.
   */
  restartWork(reason: string): void;
}

/**
 * The shell every leader-elected service uses: connect to Redis (see `startupRetry`), compete for the lease, run the
 * work while leader. Returns a function that stops the work, releases the lease and closes the connection.
 */
export async function startLeaderWork(o: LeaderWorkOptions): Promise<LeaderWorkHandle> {
  const options = {
    password: o.redisPassword,
    sentinel: o.redisSentinel,
    connectionName: o.key,
    onConnection: o.onConnection,
  };
  const redis = o.startupRetry
    ? await connectRedisAtStartup(o.redisUrl, options, { ...o.startupRetry, gate: 'redis', logger: o.logger })
    : await connectRedis(o.redisUrl, options);
  let interrupt: ((reason: Error) => void) | undefined;
  const elector = new LeaderElector({ redis, key: o.key, leaseMs: o.leaseMs, logger: o.logger });
  const leading = o.registry ? leaderGauge(o.registry) : undefined;
  const stopWork = runWhileLeader(
    elector,
    async (signal, token) => {
      const stop = await o.work(token, elector.fencing);
      leading?.set(1);
      try {
        // Until the term ends (resolve) or the work is to start over (reject: runWhileLeader restarts failed work).
        if (!signal.aborted)
          await new Promise<void>((resolve, reject) => {
            signal.addEventListener('abort', () => resolve(), { once: true });
            interrupt = reject;
          });
      } finally {
        interrupt = undefined;
        leading?.set(0);
        await stop();
      }
    },
    { logger: o.logger },
  );
  await elector.start();
  const handle = async () => {
    await stopWork();
    await elector.stop();
    await closeRedis(redis);
  };
  return Object.assign(handle, {
    restartWork: (reason: string) => interrupt?.(new WorkRestartRequested(reason)),
  });
}
