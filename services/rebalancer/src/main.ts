import { busOptionsFromEnv, connectBus, publishEvent } from '@flotilla/bus';
import { closeRedis, connectRedis, runService, startLeaderWork } from '@flotilla/runtime';
import { CONTROLLER_NAME } from './cloud-events.js';
import { configSchema } from './config.js';
import { RebalancerController } from './controller.js';

await runService({
  name: CONTROLLER_NAME,
  configSchema,
  async start({ config, logger, setReady }) {
    const bus = await connectBus(busOptionsFromEnv(config, CONTROLLER_NAME));
    // The TTL timers' connection; the lease has its own (startLeaderWork).
    const redis = await connectRedis(config.REDIS_URL, { password: config.REDIS_PASSWORD, connectionName: CONTROLLER_NAME });
    const stopLeaderWork = await startLeaderWork({
      redisUrl: config.REDIS_URL,
      redisPassword: config.REDIS_PASSWORD,
      key: `${config.FLOTILLA_PREFIX}:leader:${CONTROLLER_NAME}`,
      leaseMs: config.LEADER_LEASE_MS,
      logger,
      work: async () => {
        const controller = new RebalancerController({
          bus,
          redis,
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
    setReady(true);
    return async () => {
      setReady(false);
      await stopLeaderWork();
      await bus.close();
      await closeRedis(redis);
    };
  },
});
