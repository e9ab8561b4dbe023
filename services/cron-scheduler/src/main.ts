import { busOptionsFromEnv, connectBus, publishEvent } from '@flotilla/bus';
import { closeRedis, connectRedis, runService, startLeaderWork } from '@flotilla/runtime';
import { configSchema } from './config.js';
import { CONTROLLER_NAME, CronController } from './controller.js';

await runService({
  name: CONTROLLER_NAME,
  configSchema,
  async start({ config, logger, setReady, registry }) {
    const bus = await connectBus(busOptionsFromEnv(config, CONTROLLER_NAME));
    // The timers' connection; the lease has its own (startLeaderWork).
    const redis = await connectRedis(config.REDIS_URL, { password: config.REDIS_PASSWORD, connectionName: CONTROLLER_NAME });
    const stopLeaderWork = await startLeaderWork({
      redisUrl: config.REDIS_URL,
      redisPassword: config.REDIS_PASSWORD,
      key: `${config.FLOTILLA_PREFIX}:leader:${CONTROLLER_NAME}`,
      leaseMs: config.LEADER_LEASE_MS,
      logger,
      registry,
      work: async () => {
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
        logger.info({ defaultTimeZone: config.CRON_DEFAULT_TIME_ZONE, catchUpWindowMs: config.CRON_CATCHUP_WINDOW_MS }, 'scheduling cron rules as leader');
        return () => controller.stop();
      },
    });
    setReady(true);
    return async () => {
      setReady(false);
      await stopLeaderWork();
      await bus.close();
      await closeRedis(redis);
    };
  },
});
