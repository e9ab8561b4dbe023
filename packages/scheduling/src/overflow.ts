import { clusterMatchesAffinity } from './cluster-affinity.js';
import type { Cluster, ClusterAffinity, ClusterAffinityTerm, ResourceBinding, ResourceBindingSpec } from './types.js';

/** Karmada's tier for a cluster that matches none of a term's tiers (the filter keeps such clusters out). */
export const NO_TIER = 1000;

/** The overflow tiers of a clusterAffinities term, or undefined when it has none (plain group scheduling). */
export function overflowTiers(term: ClusterAffinityTerm | undefined): ClusterAffinity[] | undefined {
  const tiers = term?.overflowAffinities;
  return tiers && tiers.length > 0 ? tiers : undefined;
}

/**
 * Karmada's getClusterOverflowOrder: 0 when the cluster matches the term's own (inline) affinity, else i+1 for the
 * first overflow affinity it matches in list order (a cluster in several tiers belongs to the first), else NO_TIER.
 */
export function clusterTier(cluster: Cluster, term: ClusterAffinity, overflow: readonly ClusterAffinity[]): number {
  if (clusterMatchesAffinity(cluster, term)) return 0;
  for (let i = 0; i < overflow.length; i++) if (clusterMatchesAffinity(cluster, overflow[i])) return i + 1;
  return NO_TIER;
}

/** The name of tier `tier` of a term: the term's own name for tier 0, else its overflow entry's. */
export function tierName(term: ClusterAffinityTerm, tier: number): string | undefined {
  return tier === 0 ? term.affinityName : term.overflowAffinities?.[tier - 1]?.affinityName;
}

/**
 * A workload in Karmada's filter sense (replicas, replica requirements or components): only workloads may land on a
 * term's overflow tiers; anything else is placed by the term's own affinity alone.
 */
export function isWorkload(spec: ResourceBindingSpec): boolean {
  return (spec.replicas ?? 0) > 0 || spec.replicaRequirements !== undefined || (spec.components?.length ?? 0) > 0;
}

/**
 * Which tier each cluster of a binding's spec.clusters came from, by name (cluster → tier name), when the binding
 * is placed under a clusterAffinities term with overflowAffinities (the term its status observes); undefined
 * otherwise. A cluster no tier selects any more (or that is not known) is left out.
 */
export function bindingClusterTiers(
  binding: ResourceBinding,
  clusters: readonly Cluster[],
): Record<string, string> | undefined {
  const placement = binding.spec.placement;
  if (!placement || placement.clusterAffinity) return undefined;
  const observed = binding.status?.schedulerObservingAffinityName;
  if (!observed) return undefined;
  const term = placement.clusterAffinities?.find((t) => t.affinityName === observed);
  const overflow = overflowTiers(term);
  if (!term || !overflow) return undefined;
  const byName = new Map(clusters.map((c) => [c.metadata.name ?? '', c]));
  const out: Record<string, string> = {};
  for (const t of binding.spec.clusters ?? []) {
    const cluster = byName.get(t.name);
    const name = cluster && tierName(term, clusterTier(cluster, term, overflow));
    if (name !== undefined) out[t.name] = name;
  }
  return out;
}
