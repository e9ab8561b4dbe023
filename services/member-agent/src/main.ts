import { busOptionsFromEnv, connectBus } from '@flotilla/bus';
import { runLeaderService, systemClock } from '@flotilla/runtime';
import { SimAgent } from './agent.js';
import { memberAgentConfigSchema } from './config.js';
import { clientNodeApi } from './kube/client-node-api.js';
import { KubeDriver } from './kube/kube-driver.js';

await runLeaderService({
  name: 'member-agent',
  configSchema: memberAgentConfigSchema,
  // One lease per simulating installation, one per real cluster: agents of different clusters never compete.
  leaseScope: (config) => (config.MEMBER_DRIVER === 'kube' ? `kube:${config.KUBE_CLUSTER_NAME}` : 'sim'),
  async open({ config, logger }) {
    // Fail before connecting anywhere when the kube driver cannot load its client.
    const kubeApi = config.MEMBER_DRIVER === 'kube' ? await clientNodeApi(config.KUBECONFIG) : undefined;
    const bus = await connectBus(busOptionsFromEnv(config, 'member-agent'));
    logger.info({ driver: config.MEMBER_DRIVER }, 'member-agent started');
    return { resources: { bus, kubeApi }, close: () => bus.close() };
  },
  async lead({ config, logger, registry }, { bus, kubeApi }) {
    const driver = kubeApi
      ? new KubeDriver({
          clusterName: config.KUBE_CLUSTER_NAME!,
          api: kubeApi,
          bus,
          clock: systemClock,
          logger,
          pollMs: config.KUBE_POLL_MS,
          registry,
        })
      : new SimAgent({
          bus,
          clock: systemClock,
          logger,
          registry,
          tickMs: config.SIM_TICK_MS,
          sim: {
            hpaSyncPeriodMs: config.SIM_HPA_SYNC_MS,
            hpa: { downscaleStabilizationMs: config.SIM_HPA_DOWNSCALE_WINDOW_MS },
          },
        });
    await driver.start();
    return () => driver.stop();
  },
});
