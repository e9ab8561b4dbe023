import type { ServiceName } from '@flotilla/catalogue';
import { runBusService } from '@flotilla/controller';
import { baseConfigSchema, envInt } from '@flotilla/runtime';
import { ObjectStore, openInformers } from '@flotilla/store';
import { DEFAULT_CLUSTER_MONITOR_GRACE_MS } from './cluster-health.js';
import { AffinitySchedulerController, DEFAULT_SCHEDULER_CONCURRENCY } from './controller.js';

const SERVICE: ServiceName = 'affinity-scheduler';

const configSchema = baseConfigSchema.extend({
  /** Karmada's failover eviction timeout: how long a cluster may be not Ready before its bindings move. */
  FAILOVER_GRACE_MS: envInt({ default: 30_000, min: 0 }),
  /**
   * Karmada's `--cluster-monitor-grace-period`: a cluster whose agent renewed no lease for this long is set
   * Ready=Unknown (then FAILOVER_GRACE_MS runs before its workloads move).
   */
  CLUSTER_MONITOR_GRACE_MS: envInt({ default: DEFAULT_CLUSTER_MONITOR_GRACE_MS, min: 1 }),
  RESYNC_MS: envInt({ default: 30_000, min: 1000 }),
  SCHEDULER_CONCURRENCY: envInt({ default: DEFAULT_SCHEDULER_CONCURRENCY, min: 1 }),
});

await runBusService({
  name: SERVICE,
  configSchema,
  // One informer per kind for the process; it closes its readiness gate while its cache cannot be trusted.
  open: openInformers,
  async run({ config, logger }, deps) {
    const controller = new AffinitySchedulerController({
      ...deps,
      store: new ObjectStore(deps.bus),
      failoverGraceMs: config.FAILOVER_GRACE_MS,
      clusterMonitorGraceMs: config.CLUSTER_MONITOR_GRACE_MS,
      resyncMs: config.RESYNC_MS,
      concurrency: config.SCHEDULER_CONCURRENCY,
    });
    await controller.start();
    logger.info({}, 'scheduling as leader');
    return () => controller.stop();
  },
});
