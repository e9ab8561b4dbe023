import { baseConfigSchema, envInt } from '@flotilla/runtime';

export const configSchema = baseConfigSchema.extend({
  /** How often every FederatedHPA is evaluated (Karmada's --horizontal-pod-autoscaler-sync-period). */
  FHPA_SYNC_PERIOD_MS: envInt({ default: 15_000, min: 100 }),
  /** How often an assignment's max is re-split by its policy (Karmada's FederatedHPA proposal, "every period"). */
  FHPA_OPTIMISE_PERIOD_MS: envInt({ default: 300_000, min: 1000 }),
  /** autoscaleMultiClusterDelay of FederatedHPAs that set none, in seconds. */
  FHPA_DEFAULT_MULTI_CLUSTER_DELAY_SECONDS: envInt({ default: 30, min: 0 }),
  /** The shipped mode's downscale stabilization window without behavior (Kubernetes' default 300 s). */
  FHPA_DOWNSCALE_STABILIZATION_SECONDS: envInt({ default: 300, min: 0 }),
  FHPA_CONCURRENCY: envInt({ default: 32, min: 1 }),
});
