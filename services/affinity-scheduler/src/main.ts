import { busOptionsFromEnv, connectBus, publishEvent } from '@flotilla/bus';
import { baseConfigSchema, envInt, runService, startLeaderWork } from '@flotilla/runtime';
import { ObjectStore } from '@flotilla/store';
import { AffinitySchedulerController } from './controller.js';

const configSchema = baseConfigSchema.extend({
  /** Karmada's failover eviction timeout: how long a cluster may be not Ready before its bindings move. */
  FAILOVER_GRACE_MS: envInt({ default: 30_000, min: 0 }),
  RESYNC_MS: envInt({ default: 30_000, min: 1000 }),
  SCHEDULER_CONCURRENCY: envInt({ default: 64, min: 1 }),
});

await runService({
  name: 'affinity-scheduler',
  configSchema,
  async start({ config, logger, setReady, registry }) {
    const bus = await connectBus(busOptionsFromEnv(config, 'affinity-scheduler'));
    const stopLeaderWork = await startLeaderWork({
      redisUrl: config.REDIS_URL,
      redisPassword: config.REDIS_PASSWORD,
      key: `${config.FLOTILLA_PREFIX}:leader:affinity-scheduler`,
      leaseMs: config.LEADER_LEASE_MS,
      logger,
      registry,
      work: async () => {
        const controller = new AffinitySchedulerController({
          bus,
          store: new ObjectStore(bus),
          publish: (e) => publishEvent(bus, e),
          logger,
          failoverGraceMs: config.FAILOVER_GRACE_MS,
          resyncMs: config.RESYNC_MS,
          concurrency: config.SCHEDULER_CONCURRENCY,
          registry,
        });
        await controller.start();
        logger.info({}, 'scheduling as leader');
        return () => controller.stop();
      },
    });
    setReady(true);
    return async () => {
      setReady(false);
      await stopLeaderWork();
      await bus.close();
    };
  },
});
