import type { ServiceName } from '@flotilla/catalogue';
import { DEFAULT_SHARES_POLL_MS, MIN_ACTIVE_LEASE_MS, ReplicaShares, runBusService } from '@flotilla/controller';
import { baseConfigSchema, envEnum, envInt } from '@flotilla/runtime';
import { ObjectStore, openInformers } from '@flotilla/store';
import { DEFAULT_CLUSTER_MONITOR_GRACE_MS } from './cluster-health.js';
import { AffinitySchedulerController, DEFAULT_SCHEDULER_CONCURRENCY } from './controller.js';

const SERVICE: ServiceName = 'affinity-scheduler';

const configSchema = baseConfigSchema
  .extend({
    /** Karmada's failover eviction timeout: how long a cluster may be not Ready before its bindings move. */
    FAILOVER_GRACE_MS: envInt({ default: 30_000, min: 0 }),
    /**
     * Karmada's `--cluster-monitor-grace-period`: a cluster whose agent renewed no lease for this long is set
     * Ready=Unknown (then FAILOVER_GRACE_MS runs before its workloads move).
     */
    CLUSTER_MONITOR_GRACE_MS: envInt({ default: DEFAULT_CLUSTER_MONITOR_GRACE_MS, min: 1 }),
    RESYNC_MS: envInt({ default: 30_000, min: 1000 }),
    SCHEDULER_CONCURRENCY: envInt({ default: DEFAULT_SCHEDULER_CONCURRENCY, min: 1 }),
    /**
     * leader (default): one replica schedules, the others stand by for the Redis lease. active: every replica
     * schedules its own share of the templates, bindings and clusters; a replica that stops or dies hands its share
     * over within LEADER_LEASE_MS (at least MIN_ACTIVE_LEASE_MS in this mode) and the poll (SCHEDULER_SHARES_POLL_MS).
     */
    SCHEDULER_REPLICAS: envEnum(['leader', 'active'], 'leader'),
    /** In active mode: how often a replica reads the member list from NATS. */
    SCHEDULER_SHARES_POLL_MS: envInt({ default: DEFAULT_SHARES_POLL_MS, min: 10 }),
  })
  .superRefine((config, ctx) => {
    if (config.SCHEDULER_REPLICAS === 'active' && config.LEADER_LEASE_MS < MIN_ACTIVE_LEASE_MS)
      ctx.addIssue({
        code: 'custom',
        path: ['LEADER_LEASE_MS'],
        message: `must be at least ${MIN_ACTIVE_LEASE_MS} with SCHEDULER_REPLICAS=active`,
      });
  });

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
