import { AssignmentInputError } from './errors.js';
import { hamiltonSplit, type WeightedParty } from './hamilton.js';
import { fillInOrder } from './ordered-fill.js';
import { byAvailability, byClusterName, byPriority } from './preference-order.js';
import type { AssignmentPolicy, ClusterFacts, MemberAssignment } from './types.js';

export interface Bounds {
  minReplicas: number;
  maxReplicas: number;
}

/** The policies that divide min/max rather than copy them. */
export type DividingPolicy = Exclude<AssignmentPolicy, 'Duplicated'>;

/**
 * Splits a FederatedHPA's min/max over its candidate clusters by the assignment policy (Karmada's FederatedHPA
 * proposal, initial assignment). Only clusters with a max share of at least 1 get a member HPA, so the sum of the
 * maxima is the FederatedHPA's max (Duplicated aside, which copies it). Sorted by cluster name.
 */
export function assignMinMax(policy: AssignmentPolicy, bounds: Bounds, clusters: readonly ClusterFacts[]): MemberAssignment[] {
  const { minReplicas: min, maxReplicas: max } = bounds;
  if (max < min) throw new AssignmentInputError('spec.maxReplicas', `${max} is below minReplicas ${min}`);
  if (policy === 'Duplicated') return clusters.map((c) => ({ cluster: c.name, minReplicas: min, maxReplicas: max })).sort(byClusterName);
  const maxShares = splitByPolicy(policy, max, clusters);
  let minShares: Map<string, number>;
  if (policy === 'StaticWeighted' || policy === 'DynamicWeighted') {
    minShares = hamiltonSplit(min, weightedParties(policy, clusters), { caps: maxShares, atLeastOne: true });
  } else {
    minShares = fillInOrder(min, preferenceOrder(policy, clusters), maxShares);
    for (const [name, share] of maxShares) if (share >= 1 && minShares.get(name)! < 1) minShares.set(name, 1);
  }
  const out: MemberAssignment[] = [];
  for (const [cluster, maxReplicas] of maxShares) {
    if (maxReplicas >= 1) out.push({ cluster, minReplicas: minShares.get(cluster) ?? 0, maxReplicas });
  }
  return out.sort(byClusterName);
}

/**
 * Divides `total` units by the policy: StaticWeighted and DynamicWeighted by largest remainder over the static
 * weights or the availabilities; Aggregated and Prioritized by filling clusters up to their availability in their
 * order (most free capacity / highest priority first), the rest to the first.
 */
export function splitByPolicy(policy: DividingPolicy, total: number, clusters: readonly ClusterFacts[]): Map<string, number> {
  switch (policy) {
    case 'StaticWeighted':
    case 'DynamicWeighted':
      return hamiltonSplit(total, weightedParties(policy, clusters));
    case 'Aggregated':
    case 'Prioritized':
      return fillInOrder(total, preferenceOrder(policy, clusters));
    default:
      throw new AssignmentInputError('spec.federatedHPAAssignment.federatedHPAAssignmentType', `unknown assignment type ${JSON.stringify(policy)}`);
  }
}

function weightedParties(policy: 'StaticWeighted' | 'DynamicWeighted', clusters: readonly ClusterFacts[]): WeightedParty[] {
  if (policy === 'DynamicWeighted') return clusters.map((c) => ({ name: c.name, weight: c.available }));
  // Karmada's static weight list: a cluster no preference weighs is left out, unless none is weighed at all.
  const weighed = clusters.filter((c) => c.staticWeight > 0);
  return weighed.length > 0 ? weighed.map((c) => ({ name: c.name, weight: c.staticWeight })) : clusters.map((c) => ({ name: c.name, weight: 1 }));
}

function preferenceOrder(policy: 'Aggregated' | 'Prioritized', clusters: readonly ClusterFacts[]): ClusterFacts[] {
  return [...clusters].sort(policy === 'Aggregated' ? byAvailability : byPriority);
}
