import type { Candidate } from './candidate.js';
import { clusterMatchesAffinity } from './cluster-affinity.js';
import { ScheduleAttemptError } from './errors.js';
import type { Strategy } from './strategy.js';
import type { Placement, TargetCluster } from './types.js';
import { compareNames, type Party, websterSeats } from './webster.js';

export type ScheduleMode = 'Steady' | 'Fresh';

export interface AssignInput {
  /** Selected candidates in candidate order (see compareCandidates). */
  candidates: readonly Candidate[];
  strategy: Strategy;
  placement: Placement;
  /** Desired replicas (spec.replicas; 0 for non-replica kinds). */
  desired: number;
  /** True when the binding carries replicaRequirements. */
  hasRequirements: boolean;
  /** Previous assignment (spec.clusters). */
  previous: readonly TargetCluster[];
  mode: ScheduleMode;
  /** True when the template UID's FNV-1a parity sends Webster ties to larger names. */
  descendingNames: boolean;
  /**
   * Overflow tiers in use (the observed term's own clusters plus its overflowAffinities): how many there are. The
   * candidates then carry their tier, and the replicas are assigned tier by tier (see byTiers).
   */
  tierCount?: number;
}

/**
 * Karmada's AssignReplicas: divides `desired` replicas over the candidates by the strategy and
 * drops zero entries (except on the non-workload path, which keeps every candidate at 0).
 * Throws ScheduleAttemptError('Unschedulable') when capacity-aware strategies lack room.
 */
export function assignReplicas(input: AssignInput): TargetCluster[] {
  const { candidates, desired } = input;
  if (candidates.length === 0) throw new ScheduleAttemptError('SchedulerError', 'no clusters available to schedule');
  if (desired === 0 && !input.hasRequirements) {
    return candidates.map((c) => ({ name: c.name, replicas: 0 }));
  }
  const result = input.tierCount === undefined ? byStrategy(input) : byTiers(input, input.tierCount);
  // Entry order carries no meaning to Karmada; sorting by name keeps spec.clusters stable so an
  // unchanged decision is an unchanged object.
  return result.filter((t) => (t.replicas ?? 0) > 0).sort((a, b) => compareNames(a.name, b.name));
}

function byStrategy(input: AssignInput): TargetCluster[] {
  switch (input.strategy) {
    case 'Duplicated':
      return input.candidates.map((c) => ({ name: c.name, replicas: input.desired }));
    case 'StaticWeight':
      return byStaticWeight(input);
    default:
      return byCapacity(input);
  }
}

/**
 * Karmada v1.18's overflow assignment: tier by tier (the term's own clusters first, then each overflowAffinities
 * entry in order), each tier takes what is left of the desired replicas up to its tier capacity (free capacity plus
 * the replicas the workload already has there), divided by the strategy over that tier's clusters alone with the
 * previous assignment seen through the same tier. It stops at the first tier that completes the count, so later
 * tiers give their replicas back; replicas left over once every tier is full make the attempt Unschedulable.
 */
function byTiers(input: AssignInput, tierCount: number): TargetCluster[] {
  const result: TargetCluster[] = [];
  let remaining = input.desired;
  for (let tier = 0; tier < tierCount; tier++) {
    const members = input.candidates.filter((c) => (c.tier ?? 0) === tier);
    if (members.length === 0) continue;
    let capacity = 0;
    for (const c of members) capacity += c.free + c.own;
    const target = Math.min(remaining, capacity);
    for (const t of byStrategy({ ...input, candidates: members, desired: target })) result.push(t);
    remaining -= target;
    if (remaining <= 0) return result;
  }
  throw new ScheduleAttemptError('Unschedulable', 'Clusters available replicas are not enough to schedule.');
}

// Stateless: the previous assignment plays no part (so 9→8 may move a replica between clusters).
function byStaticWeight(input: AssignInput): TargetCluster[] {
  const { candidates, placement } = input;
  const rules = placement.replicaScheduling?.weightPreference?.staticWeightList;
  const parties: Party[] = [];
  if (!rules || rules.length === 0) {
    for (const c of candidates) parties.push({ name: c.name, weight: 1 });
  } else {
    let anyMatched = false;
    for (const c of candidates) {
      let w = 0;
      for (const r of rules) {
        if (r.weight > w && clusterMatchesAffinity(c.cluster, r.targetCluster)) w = r.weight;
      }
      if (w > 0) anyMatched = true;
      parties.push({ name: c.name, weight: w });
    }
    // No candidate matched any rule: fall back to equal weights rather than placing nothing.
    if (!anyMatched) for (const p of parties) p.weight = 1;
  }
  return websterSeats(
    input.desired,
    parties.filter((p) => p.weight > 0),
    input.descendingNames,
  );
}

interface Weighted {
  name: string;
  weight: number;
}

function byCapacity(input: AssignInput): TargetCluster[] {
  const { candidates, desired, strategy, descendingNames } = input;
  const aggregated = strategy === 'Aggregated';

  if (input.mode === 'Fresh') {
    const weights = candidates.map((c) => ({ name: c.name, weight: c.free + c.own }));
    if (aggregated) sortByWeightDesc(weights);
    checkCapacity(weights, desired);
    const chosen = aggregated ? shortestPrefix(weights, desired) : weights;
    return websterSeats(desired, chosen, descendingNames);
  }

  // Previous replicas on clusters that are no longer candidates are forgotten: they get re-placed
  // below as if the workload had been scaled up.
  let scheduled: TargetCluster[] = [];
  if (input.previous.length > 0) {
    const candidateNames = new Set(candidates.map((c) => c.name));
    scheduled = input.previous.filter((t) => candidateNames.has(t.name));
  }
  let assigned = 0;
  for (const t of scheduled) assigned += t.replicas ?? 0;

  if (assigned === desired) return scheduled.map((t) => ({ name: t.name, replicas: t.replicas ?? 0 }));

  if (assigned > desired) {
    const weights = scheduled.map((t) => ({ name: t.name, weight: t.replicas ?? 0 }));
    if (aggregated) sortByWeightDesc(weights);
    const chosen = aggregated ? shortestPrefix(weights, desired) : weights;
    return websterSeats(desired, chosen, descendingNames);
  }

  const target = desired - assigned;
  let weights = candidates.map((c) => ({ name: c.name, weight: c.free }));
  checkCapacity(weights, target);
  if (aggregated) {
    sortByWeightDesc(weights);
    const holding = new Set(scheduled.filter((t) => (t.replicas ?? 0) > 0).map((t) => t.name));
    weights = [...weights.filter((w) => holding.has(w.name)), ...weights.filter((w) => !holding.has(w.name))];
    weights = shortestPrefix(weights, target);
  }
  const added = websterSeats(target, weights, descendingNames);
  if (scheduled.length === 0) return added;
  const merged = new Map<string, number>();
  for (const t of scheduled) merged.set(t.name, (merged.get(t.name) ?? 0) + (t.replicas ?? 0));
  for (const a of added) merged.set(a.name, (merged.get(a.name) ?? 0) + a.replicas);
  return [...merged].map(([name, replicas]) => ({ name, replicas }));
}

// Only Aggregated prefixes depend on this order (Webster itself is order-independent).
// Array.prototype.sort is stable, which matches Go's sort for the ≤ 12 candidates that upstream
// tests cover; beyond 12 equal capacities upstream order is implementation-specific and ours
// keeps candidate order.
function sortByWeightDesc(w: Weighted[]): void {
  w.sort((a, b) => b.weight - a.weight);
}

function checkCapacity(weights: readonly Weighted[], target: number): void {
  let sum = 0;
  for (const w of weights) sum += w.weight;
  if (sum < target) {
    throw new ScheduleAttemptError('Unschedulable', `Clusters available replicas ${sum} are not enough to schedule.`);
  }
}

function shortestPrefix(weights: readonly Weighted[], target: number): Weighted[] {
  let sum = 0;
  for (let i = 0; i < weights.length; i++) {
    sum += weights[i]!.weight;
    if (sum >= target) return weights.slice(0, i + 1);
  }
  return weights.slice();
}
