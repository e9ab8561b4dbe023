import { filterClusters } from './filters.js';
import { overflowTiers } from './overflow.js';
import type { Cluster, ResourceBinding } from './types.js';

/**
 * The clusters a binding's placement admits now, by name: the scheduler's filters (API enablement, taints with
 * NoExecute eviction of current clusters, cluster affinity, readiness for new clusters) without replica
 * scheduling. A FederatedHPA with an assignment divides the replicas over these itself. With ordered affinity
 * groups the first group is used: falling through groups is replica scheduling, which the assignment replaces. That
 * group's overflowAffinities tiers count too (for a workload, as in the scheduler's filter): the FederatedHPA may
 * scale out into the clusters the term would overflow to.
 */
export function feasibleClusterNames(binding: ResourceBinding, clusters: readonly Cluster[], now: Date): string[] {
  const placement = binding.spec.placement ?? {};
  const term = placement.clusterAffinity ? undefined : placement.clusterAffinities?.[0];
  const affinity = placement.clusterAffinity ?? term;
  const { feasible } = filterClusters({ clusters, spec: binding.spec, affinity, overflow: overflowTiers(term), now });
  return feasible.map((c) => c.metadata.name ?? '').sort();
}
