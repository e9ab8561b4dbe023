import type { ServiceName } from '@flotilla/catalogue';
import { busOptionsFromEnv, connectBus, publishEvent } from '@flotilla/bus';
import { closeRedis, connectionGate, connectRedis, runLeaderService } from '@flotilla/runtime';
import { Informers } from '@flotilla/store';
import { configSchema } from './config.js';
import { RebalancerController } from './controller.js';

const SERVICE: ServiceName = 'rebalancer';

await runLeaderService({
  name: SERVICE,
  configSchema,
  async open({ config, gates, logger, registry }) {
    const bus = await connectBus(busOptionsFromEnv(config, SERVICE, connectionGate(gates, logger, 'nats')));
    // The TTL timers' connection; the lease has its own.
    const redis = await connectRedis(config.REDIS_URL, {
      password: config.REDIS_PASSWORD,
      connectionName: SERVICE,
      onConnection: connectionGate(gates, logger, 'redis-timers'),
    });
    // One informer per kind for the process; it closes its readiness gate while its cache cannot be trusted.
    const informers = new Informers({ bus, logger, registry, readiness: gates });
    return {
      resources: { bus, redis, informers },
      close: async () => {
        await bus.close();
        await closeRedis(redis);
      },
    };
  },
  repair: ({ bus }) => bus.repair(),
  async lead({ config, logger, registry }, { bus, redis, informers }) {
    const controller = new RebalancerController({
      bus,
      redis,
      informers,
      registry,
      queuePrefix: config.FLOTILLA_PREFIX,
      publish: (e) => publishEvent(bus, e),
      logger,
      concurrency: config.REBALANCER_CONCURRENCY,
      writeConcurrency: config.REBALANCER_WRITE_CONCURRENCY,
      resyncMs: config.REBALANCER_RESYNC_MS,
    });
    await controller.start();
    logger.info({}, 'rebalancing as leader');
    return () => controller.stop();
  },
});
