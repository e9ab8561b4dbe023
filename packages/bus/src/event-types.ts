/** Domain event types more than one service names (docs/design/events.md has the whole catalogue). */
export const EventTypes = {
  ObjectDeleted: 'ObjectDeleted',
  ClusterStatusReported: 'ClusterStatusReported',
  WorkloadStatusReported: 'WorkloadStatusReported',
  BindingScheduled: 'BindingScheduled',
  BindingScheduleFailed: 'BindingScheduleFailed',
} as const;
