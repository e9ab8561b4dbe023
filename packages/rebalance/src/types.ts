import type { RebalancerObjectReference, WorkloadRebalancer, WorkloadRebalancerStatus } from '@flotilla/api';

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

/** What the rebalancer reads of a binding (a stored ResourceBinding has more; these are enough). */
export interface BindingView {
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    generation?: number;
    annotations?: Record<string, string>;
  };
  spec: {
    resource: { apiVersion: string; kind: string; name: string; namespace?: string };
    rescheduleTriggeredAt?: string;
    clusters?: Array<{ name: string; replicas?: number }>;
  };
  status?: { lastScheduledTime?: string; schedulerObservingAffinityName?: string };
}

/**
 * The outcome of looking up a workload's binding: found, not found (a final `Failed` for Karmada), or an error
 * that leaves the workload pending and is retried with backoff.
 */
export type BindingLookup = { found: BindingView } | { notFound: true } | { error: string };
