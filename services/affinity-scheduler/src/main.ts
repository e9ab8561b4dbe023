import { busOptionsFromEnv, connectBus, publishEvent } from '@flotilla/bus';
import { baseConfigSchema, envInt, runLeaderService } from '@flotilla/runtime';
import { ObjectStore } from '@flotilla/store';
import { AffinitySchedulerController, DEFAULT_SCHEDULER_CONCURRENCY } from './controller.js';

const configSchema = baseConfigSchema.extend({
  /** Karmada's failover eviction timeout: how long a cluster may be not Ready before its bindings move. */
  FAILOVER_GRACE_MS: envInt({ default: 30_000, min: 0 }),
  RESYNC_MS: envInt({ default: 30_000, min: 1000 }),
  SCHEDULER_CONCURRENCY: envInt({ default: DEFAULT_SCHEDULER_CONCURRENCY, min: 1 }),
});

await runLeaderService({
  name: 'affinity-scheduler',
  configSchema,
  async open({ config }) {
    const bus = await connectBus(busOptionsFromEnv(config, 'affinity-scheduler'));
    return { resources: bus, close: () => bus.close() };
  },
  async lead({ config, logger, registry }, bus) {
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
