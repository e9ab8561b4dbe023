import type { ServiceName } from '@flotilla/catalogue';
import { hostname } from 'node:os';
import { GatewayClient } from '@flotilla/client';
import { runBusService } from '@flotilla/controller';
import { openInformers } from '@flotilla/store';
import { KubeBridge } from './bridge.js';
import { configSchema } from './config.js';
import { HostConnection } from './host-connection.js';
import { HostApi } from './host-api.js';
import { loadKubeConfig } from './kube-config.js';
import { KubeBridgeMetrics } from './metrics.js';
import { SyncRecords } from './sync-records.js';

const SERVICE: ServiceName = 'kube-bridge';

await runBusService({
  name: SERVICE,
  configSchema,
  // A kubeconfig that cannot load fails start-up before anything is connected.
  prepare: ({ config }) => ({ kubeConfig: loadKubeConfig(config.KUBE_BRIDGE_KUBECONFIG) }),
  // The sync records' connection; the lease has its own.
  redis: { gate: 'redis-records' },
  // Flotilla's side, shared per process: the kit's logger and metrics, a readiness gate per cache until it is listed.
  open: openInformers,
  async run({ config, logger, gates, registry }, { bus, redis, kubeConfig, informers }) {
    const server = kubeConfig.getCurrentCluster()?.server ?? 'unknown';
    const bridge = new KubeBridge({
      informers,
      bus,
      gateway: new GatewayClient(bus.nc, { apiRoot: bus.names.apiRoot, caller: 'kube-bridge' }),
      host: new HostApi(kubeConfig),
      records: new SyncRecords(redis, SyncRecords.hashKeyFor(config.FLOTILLA_PREFIX)),
      eventRecords: new SyncRecords<string>(redis, SyncRecords.eventsHashKeyFor(config.FLOTILLA_PREFIX)),
      connection: new HostConnection({ gates, logger, server }),
      readiness: gates,
      logger,
      metrics: KubeBridgeMetrics.of(registry),
      registry,
      concurrency: config.KUBE_BRIDGE_CONCURRENCY,
      resyncMs: config.KUBE_BRIDGE_RESYNC_MS,
      backoff: { initialMs: config.KUBE_BRIDGE_BACKOFF_MS, maxMs: config.KUBE_BRIDGE_MAX_BACKOFF_MS },
      instance: hostname(),
      reservedNamespaces: config.RESERVED_NAMESPACES,
    });
    await bridge.start();
    logger.info({ server }, 'mirroring the host API server as leader');
    return async () => {
      await bridge.stop();
      // The kept-alive connections to the host would hold the process open.
      kubeConfig.destroy();
    };
  },
});
