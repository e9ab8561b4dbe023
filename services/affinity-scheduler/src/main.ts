import type { ServiceName } from '@flotilla/catalogue';
import { busOptionsFromEnv, connectBus, publishEvent } from '@flotilla/bus';
import { baseConfigSchema, connectionGate, envInt, runLeaderService } from '@flotilla/runtime';
import { Informers, ObjectStore } from '@flotilla/store';
import { AffinitySchedulerController, DEFAULT_SCHEDULER_CONCURRENCY } from './controller.js';

const SERVICE: ServiceName = 'affinity-scheduler';

const configSchema = baseConfigSchema.extend({
  /** Karmada's failover eviction timeout: how long a cluster may be not Ready before its bindings move. */
  FAILOVER_GRACE_MS: envInt({ default: 30_000, min: 0 }),
  RESYNC_MS: envInt({ default: 30_000, min: 1000 }),
  SCHEDULER_CONCURRENCY: envInt({ default: DEFAULT_SCHEDULER_CONCURRENCY, min: 1 }),
});

await runLeaderService({
  name: SERVICE,
  configSchema,
  async open({ config, gates, logger, registry }) {
    const bus = await connectBus(busOptionsFromEnv(config, SERVICE, connectionGate(gates, logger, 'nats')));
    // One informer per kind for the process; it closes its readiness gate while its cache cannot be trusted.
    const informers = new Informers({ bus, logger, registry, readiness: gates });
    return { resources: { bus, informers }, close: () => bus.close() };
  },
  repair: ({ bus }) => bus.repair(),
  async lead({ config, logger, registry }, { bus, informers }) {
    const controller = new AffinitySchedulerController({
      bus,
      informers,
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
