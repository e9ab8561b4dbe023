import type { ServiceName } from '@flotilla/catalogue';
import { busOptionsFromEnv, connectBus, publishEvent } from '@flotilla/bus';
import { closeRedis, connectionGate, connectRedis, runLeaderService } from '@flotilla/runtime';
import { Informers } from '@flotilla/store';
import { configSchema } from './config.js';
import { CronController } from './controller.js';

const SERVICE: ServiceName = 'cron-scheduler';

await runLeaderService({
  name: SERVICE,
  configSchema,
  async open({ config, gates, logger, registry }) {
    const bus = await connectBus(busOptionsFromEnv(config, SERVICE, connectionGate(gates, logger, 'nats')));
    // The timers' connection; the lease has its own.
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
    const controller = new CronController({
      bus,
      redis,
      informers,
      queuePrefix: config.FLOTILLA_PREFIX,
      publish: (e) => publishEvent(bus, e),
      logger,
      catchUpWindowMs: config.CRON_CATCHUP_WINDOW_MS,
      defaultTimeZone: config.CRON_DEFAULT_TIME_ZONE,
      resyncMs: config.CRON_RESYNC_MS,
      concurrency: config.CRON_CONCURRENCY,
      registry,
    });
    await controller.start();
    logger.info(
      { defaultTimeZone: config.CRON_DEFAULT_TIME_ZONE, catchUpWindowMs: config.CRON_CATCHUP_WINDOW_MS },
      'scheduling cron rules as leader',
    );
    return () => controller.stop();
  },
});
