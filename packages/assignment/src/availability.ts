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
  // From the summary, not the resource models: the models count a node by the lower bound of its grade (a 4-cpu
  // 16Gi node holds 4 pods of 500m, not 8), which suits placing a workload but would cap a member HPA's max below
  // what the member's own scheduler fits, and the proposal's examples count free resources.
  return estimateFreeReplicas(cluster, requests, 1, { resourceModels: false });
}

/** The target's per-replica requests in the estimator's units (parse once per FederatedHPA, not per cluster). */
export function parsedPodRequests(requests: ResourceList | undefined): ParsedRequest | undefined {
  return parseResourceRequest(requests);
}
