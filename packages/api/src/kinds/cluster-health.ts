// The cluster-health controller's Ready reasons, apart from the Cluster kind's schemas: the scheduler reads them
// without admitting anything (core.ts).

/** The Ready condition Karmada's cluster controller sets when a cluster's status stopped coming in time. */
export const CLUSTER_STATUS_UNKNOWN = {
  reason: 'ClusterStatusUnknown',
  message: 'Cluster status controller stopped posting cluster status.',
} as const;

/** The Ready condition Karmada's cluster controller sets when a cluster's status never came within the grace period. */
export const CLUSTER_STATUS_NEVER_UPDATED = {
  reason: 'ClusterStatusNeverUpdated',
  message: 'Cluster status controller never posted cluster status.',
} as const;

/** Whether a Ready condition's reason is the cluster-health controller's (no agent ever reports it). */
export function isClusterHealthExpiryReason(reason: string | undefined): boolean {
  return reason === CLUSTER_STATUS_UNKNOWN.reason || reason === CLUSTER_STATUS_NEVER_UPDATED.reason;
}
