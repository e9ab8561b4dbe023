import type { ServiceName } from '@flotilla/catalogue';
import { runBusService } from '@flotilla/controller';
import { ensureMetricsStream, JetStreamHistory, PrometheusSource } from '@flotilla/metric-history';
import { openInformers } from '@flotilla/store';
import { configSchema } from './config.js';
import { EffectiveHpaController } from './effective-hpa-controller.js';
import { FederatedHpaController } from './federated-hpa-controller.js';

const SERVICE: ServiceName = 'hpa-assigner';

await runBusService({
  name: SERVICE,
  configSchema,
  // The delay jobs' and window timers' connection; the lease has its own.
  redis: { gate: 'redis-timers' },
  // One informer per kind for the process, shared by both controllers; it closes its readiness gate while its cache
  // cannot be trusted.
  open: openInformers,
  async run({ config, logger }, deps) {
    const { bus } = deps;
    const federatedHpas = new FederatedHpaController({
      ...deps,
      syncPeriodMs: config.FHPA_SYNC_PERIOD_MS,
      optimisePeriodMs: config.FHPA_OPTIMISE_PERIOD_MS,
      defaultMultiClusterDelaySeconds: config.FHPA_DEFAULT_MULTI_CLUSTER_DELAY_SECONDS,
      downscaleStabilizationWindowSeconds: config.FHPA_DOWNSCALE_STABILIZATION_SECONDS,
      concurrency: config.FHPA_CONCURRENCY,
    });
    await federatedHpas.start();
    // What started is stopped again if the rest fails: the work is retried, and must not leave a second controller.
    const history = config.PROMETHEUS_URL
      ? new PrometheusSource({ url: config.PROMETHEUS_URL, queryTemplate: config.PROMETHEUS_QUERY_TEMPLATE })
      : new JetStreamHistory(bus);
    const effectiveHpas = new EffectiveHpaController({
      ...deps,
      history,
      ...(config.PROMETHEUS_URL
        ? {}
        : { ensureHistoryRetention: (ms: number) => ensureMetricsStream(bus.jsm, bus, ms) }),
      syncPeriodMs: config.EHPA_SYNC_PERIOD_MS,
      controllerZone: config.EHPA_CONTROLLER_ZONE,
      concurrency: config.EHPA_CONCURRENCY,
    });
    try {
      await effectiveHpas.start();
    } catch (err) {
      await federatedHpas.stop();
      throw err;
    }
    logger.info(
      { syncPeriodMs: config.FHPA_SYNC_PERIOD_MS, history: config.PROMETHEUS_URL ? 'prometheus' : 'metrics stream' },
      'assigning FederatedHPAs and scaling EffectiveHPAs as leader',
    );
    return async () => {
      await effectiveHpas.stop();
      await federatedHpas.stop();
    };
  },
});
