import type { FederatedHPASpec } from '@flotilla/api';
import { clusterMatchesAffinity, compareNames, isReady, type Cluster, type TargetCluster } from '@flotilla/scheduling';

export interface Candidates {
  /** Ready candidate clusters, by name: the ones the min/max is split over. */
  ready: Cluster[];
  /** Candidate clusters that are not Ready: their share goes to the others (failover). By name. */
  notReady: string[];
}

/**
 * The clusters a FederatedHPA is assigned over: those its `spec.clusterAffinity` selects when set, else the
 * binding's clusters (Karmada's FederatedHPA proposal: the scheduler's choice is overridden by the affinity).
 * A name no known Cluster carries is not a candidate: there is nothing to estimate or place on.
 */
export function candidateClusters(
  spec: Pick<FederatedHPASpec, 'clusterAffinity'>,
  clusters: readonly Cluster[],
  bindingClusters: readonly TargetCluster[],
): Candidates {
  let chosen: Cluster[];
  if (spec.clusterAffinity) {
    chosen = clusters.filter((c) => clusterMatchesAffinity(c, spec.clusterAffinity));
  } else {
    const bound = new Set(bindingClusters.map((t) => t.name));
    chosen = clusters.filter((c) => bound.has(c.metadata.name ?? ''));
  }
  const byName = (a: Cluster, b: Cluster) => compareNames(a.metadata.name ?? '', b.metadata.name ?? '');
  // Informer lists usually arrive in name order already; checking is cheaper than sorting again.
  if (!chosen.every((c, i) => i === 0 || byName(chosen[i - 1]!, c) <= 0)) chosen.sort(byName);
  const ready: Cluster[] = [];
  const notReady: string[] = [];
  for (const c of chosen) {
    if (isReady(c)) ready.push(c);
    else notReady.push(c.metadata.name ?? '');
  }
  return { ready, notReady };
}
