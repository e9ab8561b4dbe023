import { PercentileRangeError } from './errors.js';

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
  if (sorted.length === 0 || percent <= 0 || percent > 100) throw new PercentileRangeError(percent, sorted.length);
  const index = percentileIndex(percent, sorted.length);
  if (Number.isInteger(index)) return sorted[index - 1]!;
  if (index > 1) {
    const i = Math.trunc(index);
    return (sorted[i - 1]! + sorted[i]!) / 2;
  }
  throw new PercentileRangeError(percent, sorted.length);
}
