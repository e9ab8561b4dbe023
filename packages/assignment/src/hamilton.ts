import { compareNames } from '@flotilla/scheduling';

export interface WeightedParty {
  name: string;
  weight: number;
}

export interface HamiltonOptions {
  /** Upper bound per party (absent = unbounded). A min split is capped by the max split. */
  caps?: ReadonlyMap<string, number>;
  /**
   * Raise every party whose cap allows it to 1 before the leftover units are handed out: Karmada's FederatedHPA
   * proposal, "min < 1 but max >= 1 -> min = 1". The result may then sum to more than `total`.
   */
  atLeastOne?: boolean;
}

/**
 * Largest-remainder (Hamilton) apportionment of `total` units by weight. Each party first gets the whole part of
 * its quota; the leftover units go by larger fractional part, then larger weight, then name. All weights 0 means
 * equal weights, so a fleet with no free capacity still gets a split rather than nothing.
 */
export function hamiltonSplit(total: number, parties: readonly WeightedParty[], options: HamiltonOptions = {}): Map<string, number> {
  const shares = new Map<string, number>();
  if (parties.length === 0) return shares;
  let weightSum = 0;
  for (const p of parties) weightSum += p.weight;
  const equal = weightSum === 0;
  if (equal) weightSum = parties.length;
  const caps = options.caps;
  // Quotas are compared as integer remainders over the common denominator, so no floating point decides a tie.
  const ranked: Array<{ name: string; weight: number; remainder: number }> = [];
  let handed = 0;
  for (const p of parties) {
    const weight = equal ? 1 : p.weight;
    const numerator = total * weight;
    const whole = Math.floor(numerator / weightSum);
    const cap = caps?.get(p.name) ?? Infinity;
    let share = Math.min(whole, cap);
    if (options.atLeastOne && share < 1 && cap >= 1) share = 1;
    shares.set(p.name, share);
    handed += share;
    ranked.push({ name: p.name, weight, remainder: numerator - whole * weightSum });
  }
  let leftover = total - handed;
  if (leftover <= 0) return shares;
  ranked.sort((a, b) => b.remainder - a.remainder || b.weight - a.weight || compareNames(a.name, b.name));
  // Caps can leave units over after one pass (Hamilton is not monotone in the total, so a min quota may exceed
  // the max share); later passes go round the same order until every unit has a party with room.
  while (leftover > 0) {
    let gave = false;
    for (const r of ranked) {
      if (leftover === 0) break;
      const share = shares.get(r.name)!;
      if (share >= (caps?.get(r.name) ?? Infinity)) continue;
      shares.set(r.name, share + 1);
      leftover--;
      gave = true;
    }
    if (!gave) break;
  }
  return shares;
}
