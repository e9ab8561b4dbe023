import type { ServiceName } from '@flotilla/catalogue';
import { busOptionsFromEnv, connectBus, publishEvent } from '@flotilla/bus';
import { closeRedis, connectionGate, connectRedis, runLeaderService } from '@flotilla/runtime';
import { configSchema } from './config.js';
import { CronController } from './controller.js';

const SERVICE: ServiceName = 'cron-scheduler';

await runLeaderService({
  name: SERVICE,
  configSchema,
  async open({ config, gates, logger }) {
    const bus = await connectBus(busOptionsFromEnv(config, SERVICE, connectionGate(gates, logger, 'nats')));
    // The timers' connection; the lease has its own.
    const redis = await connectRedis(config.REDIS_URL, {
      password: config.REDIS_PASSWORD,
      connectionName: SERVICE,
      onConnection: connectionGate(gates, logger, 'redis-timers'),
    });
    return {
      resources: { bus, redis },
      close: async () => {
        await bus.close();
        await closeRedis(redis);
      },
    };
  },
  repair: ({ bus }) => bus.repair(),
  async lead({ config, logger, registry }, { bus, redis }) {
    const controller = new CronController({
      bus,
      redis,
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
