import { CRANE_WORKLOAD_CPU_QUERY } from '@flotilla/metric-history';
import { DEFAULT_DOWNSCALE_STABILIZATION_SECONDS } from '@flotilla/hpa-math';
import { baseConfigSchema, envInt, envString } from '@flotilla/runtime';
import { EFFECTIVE_HPA_DEFAULTS } from './effective-hpa-controller.js';
import { FEDERATED_HPA_DEFAULTS } from './pass.js';

export const configSchema = baseConfigSchema.extend({
  /** How often every FederatedHPA is evaluated (Karmada's --horizontal-pod-autoscaler-sync-period). */
  FHPA_SYNC_PERIOD_MS: envInt({ default: FEDERATED_HPA_DEFAULTS.syncPeriodMs, min: 100 }),
  /** How often an assignment's max is re-split by its policy (Karmada's FederatedHPA proposal, "every period"). */
  FHPA_OPTIMISE_PERIOD_MS: envInt({ default: FEDERATED_HPA_DEFAULTS.optimisePeriodMs, min: 1000 }),
  /** autoscaleMultiClusterDelay of FederatedHPAs that set none, in seconds. */
  FHPA_DEFAULT_MULTI_CLUSTER_DELAY_SECONDS: envInt({
    default: FEDERATED_HPA_DEFAULTS.defaultMultiClusterDelaySeconds,
    min: 0,
  }),
  /** The shipped mode's downscale stabilization window without behavior (Kubernetes' default 300 s). */
  FHPA_DOWNSCALE_STABILIZATION_SECONDS: envInt({ default: DEFAULT_DOWNSCALE_STABILIZATION_SECONDS, min: 0 }),
  /** FederatedHPAs reconciled at once. */
  FHPA_CONCURRENCY: envInt({ default: FEDERATED_HPA_DEFAULTS.concurrency, min: 1 }),
  /** How often every EffectiveHPA is evaluated (the sync period of the HPA Crane manages). */
  EHPA_SYNC_PERIOD_MS: envInt({ default: EFFECTIVE_HPA_DEFAULTS.syncPeriodMs, min: 100 }),
  /** EffectiveHPAs reconciled at once. */
  EHPA_CONCURRENCY: envInt({ default: EFFECTIVE_HPA_DEFAULTS.concurrency, min: 1 }),
  /** The zone of EffectiveHPA crons with `timezone: Local`. */
  EHPA_CONTROLLER_ZONE: envString({ default: 'UTC' }),
  /**
   * A Prometheus to read EffectiveHPA usage history from (`query_range`); unset: the embedded metrics stream that the
   * sim member-agent records into.
   */
  PROMETHEUS_URL: envString(),
  /**
   * The history query, with {{namespace}}, {{kind}}, {{name}} and {{nameRegex}}: Crane's workload CPU query by
   * default; the sim member-agent's gauge is read with
   * `sum(flotilla_sim_workload_cpu_usage_cores{namespace="{{namespace}}",kind="{{kind}}",workload="{{name}}"})`.
   */
  PROMETHEUS_QUERY_TEMPLATE: envString({ default: CRANE_WORKLOAD_CPU_QUERY }),
});
