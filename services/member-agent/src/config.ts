import { reservedNamespacesEnv } from '@flotilla/api';
import { baseConfigSchema, envEnum, envInt, envString } from '@flotilla/runtime';
import type { z } from 'zod';
import { DEFAULT_CLUSTER_LEASE_RENEW_MS } from './cluster-lease.js';
import { DEFAULT_METRICS_MAX_AGE_MS } from '@flotilla/metric-history';

export const MEMBER_DRIVERS = ['sim', 'kube'] as const;
export type MemberDriverName = (typeof MEMBER_DRIVERS)[number];

/** member-agent's environment: the base variables plus the driver and its knobs. */
export const memberAgentConfigSchema = baseConfigSchema
  .extend({
    /** `sim` simulates every Cluster with `spec.simulation`; `kube` reports one real cluster. */
    MEMBER_DRIVER: envEnum(MEMBER_DRIVERS, 'sim'),
    /**
     * How often the agent renews each of its clusters' leases at most (its heartbeat; the scheduler's
     * CLUSTER_MONITOR_GRACE_MS must hold a few renewals). Renewed from the status loop, so with the kube driver
     * also no more often than KUBE_POLL_MS.
     */
    CLUSTER_LEASE_RENEW_MS: envInt({ default: DEFAULT_CLUSTER_LEASE_RENEW_MS, min: 10 }),
    /**
     * How often each simulated cluster's controller-manager (its HPAs) runs and its driver looks for time-based work
     * (pod metrics due, usage samples); changes gather half as long before a round of the drivers' passes. A
     * simulated API server is probed when its Cluster's simulation changes, and twice per CLUSTER_LEASE_RENEW_MS.
     */
    SIM_TICK_MS: envInt({ default: 1000, min: 10 }),
    /** The simulated HPA controllers' sync period (kube-controller-manager default: 15 s). */
    SIM_HPA_SYNC_MS: envInt({ default: 15_000, min: 10 }),
    /** The simulated HPA controllers' downscale stabilization window (default 5 minutes). */
    SIM_HPA_DOWNSCALE_WINDOW_MS: envInt({ default: 300_000, min: 0 }),
    /**
     * How often each simulated workload's usage is recorded into the metric history (the EffectiveHPA's embedded
     * source); match the EffectiveHPAs' `sampleInterval`. Whole seconds.
     */
    SIM_USAGE_SAMPLE_INTERVAL_MS: envInt({ default: 60_000, min: 1000 }),
    /** Created with this max age when the metrics stream does not exist yet (Crane's default 15 d history + 1 h). */
    METRICS_MAX_AGE_MS: envInt({ default: DEFAULT_METRICS_MAX_AGE_MS, min: 60_000 }),
    /** With the kube driver: the Cluster object this agent reports for. */
    KUBE_CLUSTER_NAME: envString(),
    /** With the kube driver: a kubeconfig file; unset means in-cluster or the default kubeconfig. */
    KUBECONFIG: envString(),
    /** With the kube driver: how often `/readyz` is probed (Karmada's cluster status update frequency). */
    KUBE_POLL_MS: envInt({ default: 10_000, min: 100 }),
    /**
     * With the kube driver: how long probes must fail before the Cluster is reported not Ready (Karmada's
     * `--cluster-failure-threshold`); the scheduler's FAILOVER_GRACE_MS starts after that.
     */
    KUBE_FAILURE_THRESHOLD_MS: envInt({ default: 30_000, min: 0 }),
    /**
     * With the kube driver: how long probes must succeed before a Cluster reported not Ready is Ready again (Karmada's
     * `--cluster-success-threshold`), so that an API server that flaps does not bounce workloads back and forth.
     */
    KUBE_SUCCESS_THRESHOLD_MS: envInt({ default: 30_000, min: 0 }),
    /** With the kube driver: a full reconcile at least this often besides the one each change triggers. */
    KUBE_RESYNC_MS: envInt({ default: 30_000, min: 1000 }),
    /** With the kube driver: client-go's write rate limit against the member API server, in writes a second. */
    KUBE_API_QPS: envInt({ default: 50, min: 1 }),
    /** With the kube driver: how many writes at once beyond KUBE_API_QPS. */
    KUBE_API_BURST: envInt({ default: 100, min: 1 }),
    /**
     * With the kube driver: how long each watch asks the member API server to keep it open (±20 %) before it resumes
     * from the last resourceVersion (client-go's reflector: 5 minutes and up); a resume refused with 410 Gone lists.
     */
    KUBE_WATCH_TIMEOUT_SECONDS: envInt({ default: 300, min: 1 }),
    /** With the kube driver: how many writes are in flight at once. */
    KUBE_WRITE_CONCURRENCY: envInt({ default: 8, min: 1 }),
    /** Namespaces nothing is applied into, added to kube-* and flotilla-system (the gateway's RESERVED_NAMESPACES). */
    RESERVED_NAMESPACES: reservedNamespacesEnv,
  })
  .superRefine((c, ctx) => {
    if (c.MEMBER_DRIVER === 'kube' && !c.KUBE_CLUSTER_NAME) {
      ctx.addIssue({ code: 'custom', path: ['KUBE_CLUSTER_NAME'], message: 'required when MEMBER_DRIVER=kube' });
    }
  });

export type MemberAgentConfig = z.output<typeof memberAgentConfigSchema>;
