import type {
  ObjectMeta,
  RebalancerObjectReference,
  ResourceBinding,
  ResourceBindingSpec,
  ResourceBindingStatus,
  WorkloadRebalancer,
  WorkloadRebalancerStatus,
} from '@flotilla/api';

export type { WorkloadRebalancer, WorkloadRebalancerStatus };

/** A workload a rebalancer names: apiVersion, kind, name, and namespace (empty or absent: cluster-scoped). */
export type WorkloadReference = RebalancerObjectReference;

export type RebalanceResult = 'Successful' | 'Failed';

/** The one failure reason Karmada records. */
export const REFERENCED_BINDING_NOT_FOUND = 'ReferencedBindingNotFound';

/**
 * One entry of `status.observedWorkloads`; result and reason are absent while the workload is pending. A type
 * alias, not an interface, so that it fits the API's status schema (which admits further fields).
 */
export type ObservedWorkload = {
  workload: WorkloadReference;
  result?: RebalanceResult;
  reason?: string;
};

/** Where a (Cluster)ResourceBinding lives. */
export interface BindingRef {
  kind: 'ResourceBinding' | 'ClusterResourceBinding';
  namespace?: string;
  name: string;
}

/** What the rebalancer reads of a binding: api's ResourceBinding, narrowed to the fields it uses. */
export type BindingView = Partial<Pick<ResourceBinding, 'kind'>> & {
  metadata: Pick<ObjectMeta, 'name' | 'namespace' | 'resourceVersion' | 'generation' | 'annotations'>;
  spec: Pick<ResourceBindingSpec, 'resource' | 'rescheduleTriggeredAt' | 'clusters'>;
  status?: Pick<ResourceBindingStatus, 'lastScheduledTime' | 'schedulerObservingAffinityName'>;
};

/**
 * The outcome of looking up a workload's binding: found, not found (a final `Failed` for Karmada), or an error
 * that leaves the workload pending and is retried with backoff.
 */
export type BindingLookup = { found: BindingView } | { notFound: true } | { error: string };

/**
 * What became of one binding write (a compare-and-set of spec.rescheduleTriggeredAt): stored; not needed after all
 * (the binding, read again after a lost compare-and-set, already carries this trigger or a later one); the binding
 * gone; or failed (a conflict that kept losing, the network), which leaves the workload pending for a retry.
 */
export type BindingWriteOutcome =
  | { written: BindingView }
  | { unchanged: BindingView }
  | { notFound: true }
  | { error: string };
