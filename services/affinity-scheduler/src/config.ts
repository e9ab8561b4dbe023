import { DEFAULT_SHARES_POLL_MS, MIN_ACTIVE_LEASE_MS } from '@flotilla/controller';
import { baseConfigSchema, envEnum, envInt } from '@flotilla/runtime';
import { DEFAULT_FAILOVER_GRACE_MS } from '@flotilla/scheduling';
import { DEFAULT_CLUSTER_MONITOR_GRACE_MS } from './cluster-health/decide.js';
import { DEFAULT_SCHEDULER_CONCURRENCY } from './controller.js';

/** The affinity scheduler's environment: the base variables plus failover, resync and replicas (docs/configuration.md). */
export const configSchema = baseConfigSchema
  .extend({
    /** Karmada's failover eviction timeout: how long a cluster may be not Ready before it is tainted NoExecute. */
    FAILOVER_GRACE_MS: envInt({ default: DEFAULT_FAILOVER_GRACE_MS, min: 0 }),
    /**
     * Karmada's `--cluster-monitor-grace-period`: a cluster whose agent renewed no lease (and posted no new Ready
     * condition) for this long is set Ready=Unknown, reason ClusterStatusUnknown (then FAILOVER_GRACE_MS runs).
     */
    CLUSTER_MONITOR_GRACE_MS: envInt({ default: DEFAULT_CLUSTER_MONITOR_GRACE_MS, min: 1 }),
    /** Every binding is re-evaluated once per period, a slice each second, behind changes. */
    RESYNC_MS: envInt({ default: 30_000, min: 1000 }),
    /** Reconciles at once (each mostly waits on NATS round trips). */
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
