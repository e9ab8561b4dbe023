import { busOptionsFromEnv, connectBus, publishEvent } from '@flotilla/bus';
import { closeRedis, connectRedis, runService, startLeaderWork } from '@flotilla/runtime';
import { configSchema } from './config.js';
import { CONTROLLER_NAME, FederatedHpaController } from './federated-hpa-controller.js';

await runService({
  name: CONTROLLER_NAME,
  configSchema,
  async start({ config, logger, setReady }) {
    const bus = await connectBus(busOptionsFromEnv(config, CONTROLLER_NAME));
    // The delay jobs' connection; the lease has its own (startLeaderWork).
    const redis = await connectRedis(config.REDIS_URL, { password: config.REDIS_PASSWORD, connectionName: CONTROLLER_NAME });
    const stopLeaderWork = await startLeaderWork({
      redisUrl: config.REDIS_URL,
      redisPassword: config.REDIS_PASSWORD,
      key: `${config.FLOTILLA_PREFIX}:leader:${CONTROLLER_NAME}`,
      leaseMs: config.LEADER_LEASE_MS,
      logger,
      work: async () => {
        // The FederatedHPA controller; the EffectiveHPA controller starts beside it.
        const federatedHpas = new FederatedHpaController({
          bus,
          redis,
          queuePrefix: config.FLOTILLA_PREFIX,
          publish: (e) => publishEvent(bus, e),
          logger,
          syncPeriodMs: config.FHPA_SYNC_PERIOD_MS,
          optimisePeriodMs: config.FHPA_OPTIMISE_PERIOD_MS,
          defaultMultiClusterDelaySeconds: config.FHPA_DEFAULT_MULTI_CLUSTER_DELAY_SECONDS,
          downscaleStabilizationWindowSeconds: config.FHPA_DOWNSCALE_STABILIZATION_SECONDS,
          concurrency: config.FHPA_CONCURRENCY,
        });
        await federatedHpas.start();
        logger.info({ syncPeriodMs: config.FHPA_SYNC_PERIOD_MS }, 'assigning FederatedHPAs as leader');
        return () => federatedHpas.stop();
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
