import type { ServiceName } from '@flotilla/catalogue';
import { ReplicaShares, runBusService } from '@flotilla/controller';
import { ObjectStore, openInformers } from '@flotilla/store';
import { configSchema } from './config.js';
import { AffinitySchedulerController } from './controller.js';

const SERVICE: ServiceName = 'affinity-scheduler';

await runBusService({
  name: SERVICE,
  configSchema,
  leader: (config) => config.SCHEDULER_REPLICAS === 'leader',
  // One informer per kind for the process; it closes its readiness gate while its cache cannot be trusted.
  open: openInformers,
  async run({ config, logger }, deps) {
    const active = config.SCHEDULER_REPLICAS === 'active';
    let controller: AffinitySchedulerController | undefined;
    const shares = active
      ? new ReplicaShares({
          bus: deps.bus,
          group: SERVICE,
          leaseMs: config.LEADER_LEASE_MS,
          pollMs: config.SCHEDULER_SHARES_POLL_MS,
          logger,
          onChange: (change) => controller?.sharesChanged(change.ownedBefore),
        })
      : undefined;
    // Joined (and the member list read) before the first reconcile, so a new replica never starts out owning all.
    await shares?.start();
    controller = new AffinitySchedulerController({
      ...deps,
      store: new ObjectStore(deps.bus),
      failoverGraceMs: config.FAILOVER_GRACE_MS,
      clusterMonitorGraceMs: config.CLUSTER_MONITOR_GRACE_MS,
      resyncMs: config.RESYNC_MS,
      concurrency: config.SCHEDULER_CONCURRENCY,
      ...(shares ? { owns: (key: string) => shares.owns(key) } : {}),
    });
    try {
      await controller.start();
    } catch (err) {
      await shares?.stop();
      throw err;
    }
    logger.info(
      shares ? { replica: shares.self, members: shares.members } : {},
      active ? 'scheduling its share as an active replica' : 'scheduling as leader',
    );
    return async () => {
      // The share is handed over first, so the others start on it while this replica finishes what it runs.
      await shares?.stop();
      await controller.stop();
    };
  },
});
