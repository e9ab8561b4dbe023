import { busOptionsFromEnv, connectBus, publishEvent } from '@flotilla/bus';
import { closeRedis, connectRedis, runService, startLeaderWork } from '@flotilla/runtime';
import { ensureMetricsStream, JetStreamHistory, PrometheusSource } from '@flotilla/metric-history';
import { configSchema } from './config.js';
import { EffectiveHpaController } from './effective-hpa-controller.js';
import { CONTROLLER_NAME, FederatedHpaController } from './federated-hpa-controller.js';

await runService({
  name: CONTROLLER_NAME,
  configSchema,
  async start({ config, logger, setReady }) {
    const bus = await connectBus(busOptionsFromEnv(config, CONTROLLER_NAME));
    // The delay jobs' connection; the lease has its own (startLeaderWork).
    const redis = await connectRedis(config.REDIS_URL, {
      password: config.REDIS_PASSWORD,
      connectionName: CONTROLLER_NAME,
    });
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
        const history = config.PROMETHEUS_URL
          ? new PrometheusSource({ url: config.PROMETHEUS_URL, queryTemplate: config.PROMETHEUS_QUERY_TEMPLATE })
          : new JetStreamHistory(bus);
        const effectiveHpas = new EffectiveHpaController({
          bus,
          redis,
          queuePrefix: config.FLOTILLA_PREFIX,
          publish: (e) => publishEvent(bus, e),
          logger,
          history,
          ...(config.PROMETHEUS_URL
            ? {}
            : { ensureHistoryRetention: (ms: number) => ensureMetricsStream(bus.jsm, bus, ms) }),
          syncPeriodMs: config.EHPA_SYNC_PERIOD_MS,
          controllerZone: config.EHPA_CONTROLLER_ZONE,
          concurrency: config.EHPA_CONCURRENCY,
        });
        await effectiveHpas.start();
        logger.info(
          {
            syncPeriodMs: config.FHPA_SYNC_PERIOD_MS,
            history: config.PROMETHEUS_URL ? 'prometheus' : 'metrics stream',
          },
          'assigning FederatedHPAs and scaling EffectiveHPAs as leader',
        );
        return async () => {
          await effectiveHpas.stop();
          await federatedHpas.stop();
        };
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
