import type { ServiceName } from '@flotilla/catalogue';
import { hostname } from 'node:os';
import { busOptionsFromEnv, connectBus } from '@flotilla/bus';
import { GatewayClient } from '@flotilla/client';
import { closeRedis, connectionGate, connectRedis, runLeaderService } from '@flotilla/runtime';
import { KubeBridge } from './bridge.js';
import { configSchema } from './config.js';
import { HostConnection } from './host-connection.js';
import { HostApi } from './host-api.js';
import { loadKubeConfig } from './kube-config.js';
import { KubeBridgeMetrics } from './metrics.js';
import { SyncRecords } from './sync-records.js';

const SERVICE: ServiceName = 'kube-bridge';

await runLeaderService({
  name: SERVICE,
  configSchema,
  async open({ config, gates, logger }) {
    const kubeConfig = loadKubeConfig(config.KUBE_BRIDGE_KUBECONFIG);
    const bus = await connectBus(busOptionsFromEnv(config, SERVICE, connectionGate(gates, logger, 'nats')));
    // The sync records' connection; the lease has its own.
    const redis = await connectRedis(config.REDIS_URL, {
      password: config.REDIS_PASSWORD,
      connectionName: SERVICE,
      onConnection: connectionGate(gates, logger, 'redis-records'),
    });
    return {
      resources: { bus, redis, kubeConfig },
      close: async () => {
        await bus.close();
        await closeRedis(redis);
      },
    };
  },
  repair: ({ bus }) => bus.repair(),
  async lead({ config, logger, gates, registry }, { bus, redis, kubeConfig }) {
    const server = kubeConfig.getCurrentCluster()?.server ?? 'unknown';
    const bridge = new KubeBridge({
      bus,
      gateway: new GatewayClient(bus.nc, { apiRoot: bus.names.apiRoot }),
      host: new HostApi(kubeConfig),
      records: new SyncRecords(redis, SyncRecords.hashKeyFor(config.FLOTILLA_PREFIX)),
      eventRecords: new SyncRecords<string>(redis, SyncRecords.eventsHashKeyFor(config.FLOTILLA_PREFIX)),
      connection: new HostConnection(gates, logger, server),
      logger,
      metrics: KubeBridgeMetrics.of(registry),
      registry,
      concurrency: config.KUBE_BRIDGE_CONCURRENCY,
      resyncMs: config.KUBE_BRIDGE_RESYNC_MS,
      backoff: { initialMs: config.KUBE_BRIDGE_BACKOFF_MS, maxMs: config.KUBE_BRIDGE_MAX_BACKOFF_MS },
      instance: hostname(),
    });
    await bridge.start();
    logger.info({ server }, 'mirroring the host API server as leader');
    return () => bridge.stop();
  },
});
