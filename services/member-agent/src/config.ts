import { baseConfigSchema, envEnum, envInt, envString } from '@flotilla/runtime';
import type { z } from 'zod';

export const MEMBER_DRIVERS = ['sim', 'kube'] as const;
export type MemberDriverName = (typeof MEMBER_DRIVERS)[number];

/** member-agent's environment: the base variables plus the driver and its knobs. */
export const memberAgentConfigSchema = baseConfigSchema
  .extend({
    /** `sim` simulates every Cluster with `spec.simulation`; `kube` reports one real cluster. */
    MEMBER_DRIVER: envEnum(MEMBER_DRIVERS, 'sim'),
    /** How often simulated clusters advance and report. */
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
    METRICS_MAX_AGE_MS: envInt({ default: (15 * 24 + 1) * 3_600_000, min: 60_000 }),
    /** With the kube driver: the Cluster object this agent reports for. */
    KUBE_CLUSTER_NAME: envString(),
    /** With the kube driver: a kubeconfig file; unset means in-cluster or the default kubeconfig. */
    KUBECONFIG: envString(),
    /** With the kube driver: how often the cluster is polled. */
    KUBE_POLL_MS: envInt({ default: 10_000, min: 100 }),
  })
  .superRefine((c, ctx) => {
    if (c.MEMBER_DRIVER === 'kube' && !c.KUBE_CLUSTER_NAME) {
      ctx.addIssue({ code: 'custom', path: ['KUBE_CLUSTER_NAME'], message: 'required when MEMBER_DRIVER=kube' });
    }
  });

export type MemberAgentConfig = z.output<typeof memberAgentConfigSchema>;
