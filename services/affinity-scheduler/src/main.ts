import { busOptionsFromEnv, connectBus, publishEvent } from '@flotilla/bus';
import { baseConfigSchema, connectRedis, envInt, LeaderElector, runService, runWhileLeader } from '@flotilla/runtime';
import { ObjectStore } from '@flotilla/store';
import { AffinitySchedulerController } from './controller.js';

const configSchema = baseConfigSchema.extend({
  /** Karmada's failover eviction timeout: how long a cluster may be not Ready before its bindings move. */
  FAILOVER_GRACE_MS: envInt({ default: 30_000, min: 0 }),
  RESYNC_MS: envInt({ default: 30_000, min: 1000 }),
  SCHEDULER_CONCURRENCY: envInt({ default: 8, min: 1 }),
});

await runService({
  name: 'affinity-scheduler',
  configSchema,
  async start({ config, logger, setReady }) {
    const bus = await connectBus(busOptionsFromEnv(config, 'affinity-scheduler'));
    const redis = await connectRedis(config.REDIS_URL, { password: config.REDIS_PASSWORD, connectionName: 'affinity-scheduler' });
    const elector = new LeaderElector({ redis, key: `${config.FLOTILLA_PREFIX}:leader:affinity-scheduler`, leaseMs: config.LEADER_LEASE_MS, logger });
    const stopWork = runWhileLeader(
      elector,
      async (signal) => {
        const controller = new AffinitySchedulerController({
          bus,
          store: new ObjectStore(bus),
          publish: (e) => publishEvent(bus, e),
          logger,
          failoverGraceMs: config.FAILOVER_GRACE_MS,
          resyncMs: config.RESYNC_MS,
          concurrency: config.SCHEDULER_CONCURRENCY,
        });
        await controller.start();
        logger.info({}, 'scheduling as leader');
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        await controller.stop();
      },
      { logger },
    );
    await elector.start();
    setReady(true);
    return async () => {
      setReady(false);
      await stopWork();
      await elector.stop();
      await bus.close();
      await redis.quit();
    };
  },
});
