/** Domain event types more than one service names (docs/design/events.md has the whole catalogue). */
export const EventTypes = {
  ObjectDeleted: 'ObjectDeleted',
  ClusterStatusReported: 'ClusterStatusReported',
  /** The scheduler's cluster-health controller: no lease renewal within the grace period, Ready set to Unknown. */
  ClusterStatusExpired: 'ClusterStatusExpired',
  WorkloadStatusReported: 'WorkloadStatusReported',
  BindingScheduled: 'BindingScheduled',
  BindingScheduleFailed: 'BindingScheduleFailed',
} as const;
