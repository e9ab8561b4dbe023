import { filterClusters } from './filters.js';
import type { Cluster, ResourceBinding } from './types.js';

/**
 * The clusters a binding's placement admits now, by name: the scheduler's filters (API enablement, taints with
 * NoExecute eviction of current clusters, cluster affinity, readiness for new clusters) without replica
 * scheduling. A FederatedHPA with an assignment divides the replicas over these itself. With ordered affinity
 * groups the first group is used: falling through groups is replica scheduling, which the assignment replaces.
 */
export function feasibleClusterNames(binding: ResourceBinding, clusters: readonly Cluster[], now: Date): string[] {
  const placement = binding.spec.placement ?? {};
  const affinity = placement.clusterAffinity ?? placement.clusterAffinities?.[0];
  const { feasible } = filterClusters({ clusters, spec: binding.spec, affinity, now });
  return feasible.map((c) => c.metadata.name ?? '').sort();
}
