import { FEDERATED_HPA_ASSIGNMENT_TYPES } from '@flotilla/api';
import { compareNames } from '@flotilla/scheduling';
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
export function assignMinMax(
  policy: AssignmentPolicy,
  bounds: Bounds,
  clusters: readonly ClusterFacts[],
): MemberAssignment[] {
  const { minReplicas: min, maxReplicas: max } = bounds;
  if (max < min) throw new AssignmentInputError('spec.maxReplicas', `${max} is below minReplicas ${min}`);
  if (!FEDERATED_HPA_ASSIGNMENT_TYPES.includes(policy)) {
    throw new AssignmentInputError(
      'spec.federatedHPAAssignment.federatedHPAAssignmentType',
      `unknown assignment type ${JSON.stringify(policy)}`,
    );
  }
  if (policy === 'Duplicated')
    return clusters.map((c) => ({ cluster: c.name, minReplicas: min, maxReplicas: max })).sort(byClusterName);
  let named: ReadonlyArray<{ name: string }>;
  let maxShares: number[];
  let minShares: number[];
  if (policy === 'StaticWeighted' || policy === 'DynamicWeighted') {
    const parties = weightedParties(policy, clusters);
    named = parties;
    maxShares = hamiltonSplit(max, parties);
    minShares = hamiltonSplit(min, parties, { caps: maxShares, atLeastOne: true });
  } else {
    const order = preferenceOrder(policy, clusters);
    named = order;
    maxShares = fillInOrder(max, order);
    minShares = fillInOrder(min, order, maxShares);
    for (let i = 0; i < order.length; i++) if (maxShares[i]! >= 1 && minShares[i]! < 1) minShares[i] = 1;
  }
  const out: MemberAssignment[] = [];
  for (let i = 0; i < named.length; i++) {
    if (maxShares[i]! >= 1)
      out.push({ cluster: named[i]!.name, minReplicas: minShares[i]!, maxReplicas: maxShares[i]! });
  }
  return out.sort(byClusterName);
}

/**
 * Divides `total` units by the policy: StaticWeighted and DynamicWeighted by largest remainder over the static
 * weights or the availabilities; Aggregated and Prioritized by filling clusters up to their availability in their
 * order (most free capacity / highest priority first), the rest to the first.
 */
export function splitByPolicy(
  policy: DividingPolicy,
  total: number,
  clusters: readonly ClusterFacts[],
): Map<string, number> {
  switch (policy) {
    case 'StaticWeighted':
    case 'DynamicWeighted': {
      const parties = weightedParties(policy, clusters);
      return byName(parties, hamiltonSplit(total, parties));
    }
    case 'Aggregated':
    case 'Prioritized': {
      const order = preferenceOrder(policy, clusters);
      return byName(order, fillInOrder(total, order));
    }
    default:
      throw new AssignmentInputError(
        'spec.federatedHPAAssignment.federatedHPAAssignmentType',
        `unknown assignment type ${JSON.stringify(policy)}`,
      );
  }
}

function weightedParties(
  policy: 'StaticWeighted' | 'DynamicWeighted',
  clusters: readonly ClusterFacts[],
): WeightedParty[] {
  if (policy === 'DynamicWeighted') return clusters.map((c) => ({ name: c.name, weight: c.available }));
  // Karmada's static weight list: a cluster no preference weighs is left out, unless none is weighed at all.
  const weighed = clusters.filter((c) => c.staticWeight > 0);
  return weighed.length > 0
    ? weighed.map((c) => ({ name: c.name, weight: c.staticWeight }))
    : clusters.map((c) => ({ name: c.name, weight: 1 }));
}

function preferenceOrder(policy: 'Aggregated' | 'Prioritized', clusters: readonly ClusterFacts[]): ClusterFacts[] {
  // Candidates come in name order, and Array.prototype.sort is stable, so the policy's own key is enough then.
  const named = clusters.every((c, i) => i === 0 || compareNames(clusters[i - 1]!.name, c.name) <= 0);
  if (!named) return [...clusters].sort(policy === 'Aggregated' ? byAvailability : byPriority);
  return policy === 'Aggregated'
    ? [...clusters].sort((a, b) => b.available - a.available)
    : [...clusters].sort(byPriorityOnly);
}

function byPriorityOnly(a: ClusterFacts, b: ClusterFacts): number {
  const pa = a.priority ?? -Infinity;
  const pb = b.priority ?? -Infinity;
  return pb === pa ? 0 : pb > pa ? 1 : -1;
}

function byName(named: ReadonlyArray<{ name: string }>, shares: readonly number[]): Map<string, number> {
  return new Map(named.map((p, i) => [p.name, shares[i]!]));
}
