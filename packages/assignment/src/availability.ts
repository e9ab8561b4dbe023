import {
  estimateFreeReplicas,
  parseResourceRequest,
  type Cluster,
  type ParsedRequest,
  type ResourceList,
} from '@flotilla/scheduling';

/**
 * A cluster's availability for a FederatedHPA's target: the scheduler estimator's free replicas for the target's
 * pod requests (allocatable − allocated − allocating from the Cluster's resource summary). The workload's own
 * running replicas are not added back: that is what reproduces the proposal's Prioritized example.
 */
export function clusterAvailability(cluster: Cluster, requests: ParsedRequest | undefined): number {
  // desiredReplicas 0 would mean "a non-workload, unbounded" to the estimator; a FederatedHPA target has pods.
  return estimateFreeReplicas(cluster, requests, 1);
}

/** The target's per-replica requests in the estimator's units (parse once per FederatedHPA, not per cluster). */
export function parsedPodRequests(requests: ResourceList | undefined): ParsedRequest | undefined {
  return parseResourceRequest(requests);
}
