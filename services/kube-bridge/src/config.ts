import { reservedNamespacesEnv } from '@flotilla/api';
import { baseConfigSchema, envInt, envString } from '@flotilla/runtime';

export const configSchema = baseConfigSchema.extend({
  /**
   * The host API server's kubeconfig file. Empty: the in-cluster service account (the bridge runs as a Deployment
   * in the host cluster).
   */
  KUBE_BRIDGE_KUBECONFIG: envString(),
  /** Objects mirrored at once. */
  KUBE_BRIDGE_CONCURRENCY: envInt({ default: 16, min: 1 }),
  /** Every mirrored object is reconsidered this often, whatever the watches said. */
  KUBE_BRIDGE_RESYNC_MS: envInt({ default: 300_000, min: 1000 }),
  /** First wait before a failed write or a lost watch is tried again; doubles per failure. */
  KUBE_BRIDGE_BACKOFF_MS: envInt({ default: 250, min: 10 }),
  /** The longest wait between tries. */
  KUBE_BRIDGE_MAX_BACKOFF_MS: envInt({ default: 10_000, min: 100 }),
  /** Namespaces mirrored neither way, added to kube-* and flotilla-system (the gateway's RESERVED_NAMESPACES). */
  RESERVED_NAMESPACES: reservedNamespacesEnv,
});
export type KubeBridgeConfig = typeof configSchema._output;
