import { compareNames } from '@flotilla/scheduling';

export interface WeightedParty {
  name: string;
  weight: number;
}

export interface HamiltonOptions {
  /** Upper bound per party, aligned with the parties (absent = unbounded). A min split is capped by the max split. */
  caps?: readonly number[];
  /**
   * Raise every party whose cap allows it to 1 before the leftover units are handed out: Karmada's FederatedHPA
   * proposal, "min < 1 but max >= 1 -> min = 1". The result may then sum to more than `total`.
   */
  atLeastOne?: boolean;
}

/**
 * Largest-remainder (Hamilton) apportionment of `total` units by weight; shares are aligned with `parties`. Each
 * party first gets the whole part of its quota; the leftover units go by larger fractional part, then larger
 * weight, then name. All weights 0 means equal weights, so a fleet with no free capacity still gets a split.
 */
export function hamiltonSplit(
  total: number,
  parties: readonly WeightedParty[],
  options: HamiltonOptions = {},
): number[] {
  const n = parties.length;
  const shares = new Array<number>(n);
  if (n === 0) return shares;
  let weightSum = 0;
  for (const p of parties) weightSum += p.weight;
  const equal = weightSum === 0;
  if (equal) weightSum = n;
  const caps = options.caps;
  // Quotas are compared as integer remainders over the common denominator, so no floating point decides a tie.
  const remainders = new Array<number>(n);
  let handed = 0;
  for (let i = 0; i < n; i++) {
    const numerator = total * (equal ? 1 : parties[i]!.weight);
    const whole = Math.floor(numerator / weightSum);
    const cap = caps ? caps[i]! : Infinity;
    let share = Math.min(whole, cap);
    if (options.atLeastOne && share < 1 && cap >= 1) share = 1;
    shares[i] = share;
    handed += share;
    remainders[i] = numerator - whole * weightSum;
  }
  let leftover = total - handed;
  if (leftover <= 0) return shares;
  const ranked = Array.from({ length: n }, (_, i) => i);
  // Parties usually come in name order, and then their index is the name tie-break without comparing strings.
  const named = parties.every((p, i) => i === 0 || compareNames(parties[i - 1]!.name, p.name) <= 0);
  const byName = named
    ? (a: number, b: number) => a - b
    : (a: number, b: number) => compareNames(parties[a]!.name, parties[b]!.name);
  ranked.sort((a, b) => remainders[b]! - remainders[a]! || parties[b]!.weight - parties[a]!.weight || byName(a, b));
  // Caps can leave units over after one pass (Hamilton is not monotone in the total, so a min quota may exceed
  // the max share); later passes go round the same order until every unit has a party with room.
  while (leftover > 0) {
    let gave = false;
    for (const i of ranked) {
      if (leftover === 0) break;
      if (caps && shares[i]! >= caps[i]!) continue;
      shares[i]!++;
      leftover--;
      gave = true;
    }
    if (!gave) break;
  }
  return shares;
}
