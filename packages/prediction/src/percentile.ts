import { PercentileRangeError } from './errors.js';
import { valuesAtRanks } from './order-statistics.js';

/** The fractional rank montanaflynn/stats v0.6.6 computes for `percent` of `count` values, in float64. */
export function percentileIndex(percent: number, count: number): number {
  return (percent / 100) * count;
}

/**
 * montanaflynn/stats v0.6.6 `Percentile`, which Crane's outlier removal uses: sort ascending; a whole index `i`
 * takes the i-th value (1-based), a fractional one above 1 the mean of its two neighbours; anything else is out of
 * range. Note the float64 rank: P99.9 of 2,000 values is at 1998.0000000000002, so it averages two values.
 */
export function percentile(values: readonly number[] | Float64Array, percent: number): number {
  return percentileOfSorted(Float64Array.from(values).sort(), percent);
}

/** {@link percentile} of values already sorted ascending (to take several percentiles with one sort). */
export function percentileOfSorted(sorted: Float64Array, percent: number): number {
  const [lower, upper] = percentileRanks(percent, sorted.length);
  return upper === undefined ? sorted[lower]! : (sorted[lower]! + sorted[upper]!) / 2;
}

/**
 * Several {@link percentile}s of unsorted values with the same results, by selecting the few ranks they read instead
 * of sorting (Crane's outlier removal takes P99.9 and P0.1 of every series). Throws as {@link percentile} does.
 */
export function percentiles(values: readonly number[] | Float64Array, percents: readonly number[]): number[] {
  const ranks = percents.map((p) => percentileRanks(p, values.length));
  const at = valuesAtRanks(Float64Array.from(values), ranks.flat());
  let next = 0;
  return ranks.map(([, upper]) => (upper === undefined ? at[next++]! : (at[next++]! + at[next++]!) / 2));
}

/** The 0-based ranks of the sorted values `percent` reads: one at a whole fractional rank, else its two neighbours. */
function percentileRanks(percent: number, count: number): [number] | [number, number] {
  if (count === 0 || percent <= 0 || percent > 100) throw new PercentileRangeError(percent, count);
  const index = percentileIndex(percent, count);
  if (Number.isInteger(index)) return [index - 1];
  if (index > 1) {
    const i = Math.trunc(index);
    return [i - 1, i];
  }
  throw new PercentileRangeError(percent, count);
}
