import type { ServiceName } from '@flotilla/catalogue';
import { runBusService } from '@flotilla/controller';
import { ensureMetricsStream, JetStreamHistory } from '@flotilla/metric-history';
import { systemClock } from '@flotilla/runtime';
import { openInformers } from '@flotilla/store';
import { memberAgentConfigSchema } from './config.js';
import { KubeDriver } from './kube/kube-driver.js';
import { SimulatedFleet } from './sim/simulated-fleet.js';
import { WorkloadUsageGauge } from './usage-metrics.js';
import { UsageRecorder } from './usage-recorder.js';

const SERVICE: ServiceName = 'member-agent';

await runBusService({
  name: SERVICE,
  configSchema: memberAgentConfigSchema,
  // One lease per simulating installation, one per real cluster: agents of different clusters never compete.
  leaseScope: (config) => (config.MEMBER_DRIVER === 'kube' ? `kube:${config.KUBE_CLUSTER_NAME}` : 'sim'),
  // Fail before connecting anywhere when the kube driver cannot load its client.
  // Loaded only for the kube driver: @kubernetes/client-node takes seconds to import, which the sim driver (and every
  // test suite that runs it) need not pay.
  prepare: async ({ config }) => ({
    kubeApi:
      config.MEMBER_DRIVER === 'kube'
        ? (await import('./kube/client-node-api.js')).clientNodeApi({
            cluster: config.KUBE_CLUSTER_NAME!,
            kubeconfig: config.KUBECONFIG,
          })
        : undefined,
  }),
  async open({ config, logger, registry, gates }, { bus }) {
    // Per replica: a metric is registered once per process.
    const usageGauge = new WorkloadUsageGauge(registry);
    // Both drivers record workload usage. The hpa-assigner sizes the stream to the longest historyLength in use; the
    // agent only makes sure it exists.
    const exists = await bus.jsm.streams.info(bus.names.metricsStream).then(
      () => true,
      () => false,
    );
    if (!exists) await ensureMetricsStream(bus.jsm, bus, config.METRICS_MAX_AGE_MS);
    logger.info({ driver: config.MEMBER_DRIVER }, 'member-agent started');
    // The process's shared informers, each behind its readiness gate: every cluster's kube driver reads them.
    return { usageGauge, ...openInformers({ logger, registry, gates }, { bus }) };
  },
  async run({ config, logger, registry, gates }, { bus, kubeApi, usageGauge, informers }) {
    // Both drivers run the kube driver: one for the real cluster, or one per simulated cluster behind a simulated
    // member API (the fleet). Only @kubernetes/client-node's own client (client-node-api.ts) is for real clusters.
    const driver = kubeApi
      ? new KubeDriver({
          clusterName: config.KUBE_CLUSTER_NAME!,
          api: kubeApi,
          bus,
          informers,
          clock: systemClock,
          logger,
          pollMs: config.KUBE_POLL_MS,
          leaseRenewMs: config.CLUSTER_LEASE_RENEW_MS,
          failureThresholdMs: config.KUBE_FAILURE_THRESHOLD_MS,
          successThresholdMs: config.KUBE_SUCCESS_THRESHOLD_MS,
          resyncMs: config.KUBE_RESYNC_MS,
          watchTimeoutSeconds: config.KUBE_WATCH_TIMEOUT_SECONDS,
          writes: {
            qps: config.KUBE_API_QPS,
            burst: config.KUBE_API_BURST,
            concurrency: config.KUBE_WRITE_CONCURRENCY,
          },
          registry,
          readiness: gates,
          usageGauge,
          reservedNamespaces: config.RESERVED_NAMESPACES,
          // Its cluster's part of each workload's usage: the other members' agents record theirs beside it.
          usageRecorder: new UsageRecorder(new JetStreamHistory(bus), config.SIM_USAGE_SAMPLE_INTERVAL_MS, {
            source: config.KUBE_CLUSTER_NAME!,
          }),
        })
      : new SimulatedFleet({
          bus,
          clock: systemClock,
          logger,
          informers,
          registry,
          readiness: gates,
          tickMs: config.SIM_TICK_MS,
          leaseRenewMs: config.CLUSTER_LEASE_RENEW_MS,
          hpaSyncPeriodMs: config.SIM_HPA_SYNC_MS,
          hpa: { downscaleStabilizationMs: config.SIM_HPA_DOWNSCALE_WINDOW_MS },
          reservedNamespaces: config.RESERVED_NAMESPACES,
          usageGauge,
          // Each simulated cluster records its part, as each real cluster's agent does.
          usageRecorder: (cluster) =>
            new UsageRecorder(new JetStreamHistory(bus), config.SIM_USAGE_SAMPLE_INTERVAL_MS, { source: cluster }),
        });
    await driver.start();
    return async () => {
      await driver.stop();
      // its kept-alive connections; a later term opens new ones
      kubeApi?.close();
    };
  },
});
