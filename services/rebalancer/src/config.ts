import { FAIL_BACK_BUDGET_DEFAULTS } from '@flotilla/rebalance';
import { baseConfigSchema, envInt } from '@flotilla/runtime';

export const configSchema = baseConfigSchema.extend({
  /** WorkloadRebalancers reconciled at once. */
  REBALANCER_CONCURRENCY: envInt({ default: 4, min: 1 }),
  /** Binding compare-and-sets in flight per rebalancer. */
  REBALANCER_WRITE_CONCURRENCY: envInt({ default: 128, min: 1 }),
  /** Every rebalancer (and every fail-back candidate) is reconsidered this often. */
  REBALANCER_RESYNC_MS: envInt({ default: 60_000, min: 1000 }),
  /** The fleet's fail-backs at most per REBALANCER_FAILBACK_BUDGET_PERIOD_MS, so a recovered region does not pull every workload back at once. */
  REBALANCER_FAILBACK_BUDGET: envInt({ default: FAIL_BACK_BUDGET_DEFAULTS.max, min: 1 }),
  /** The period REBALANCER_FAILBACK_BUDGET counts fail-backs in. */
  REBALANCER_FAILBACK_BUDGET_PERIOD_MS: envInt({ default: FAIL_BACK_BUDGET_DEFAULTS.periodMs, min: 1000 }),
});
