import { InvalidTimeSeriesError } from './errors.js';
import { percentileOfSorted } from './percentile.js';

/** One history sample: `timestamp` in Unix seconds. */
export interface Sample {
  readonly timestamp: number;
  readonly value: number;
}

/** Consecutive samples further apart than this are a gap: everything before it is dropped. */
export const MAX_GAP_SECONDS = 3600;

/**
 * Crane's gap handling and linear fill (`fillMissingData`): keep only what follows the last step longer than an
 * hour, reject a step that is not a positive multiple of the interval, and fill each shorter hole with samples on
 * the straight line between its neighbours. As in Crane, the walk stops at the first bad step even when a later
 * gap would have dropped it.
 */
export function fillGaps(samples: readonly Sample[], intervalSeconds: number): Sample[] {
  let begin = 0;
  for (let i = 1; i < samples.length; i++) {
    const step = samples[i]!.timestamp - samples[i - 1]!.timestamp;
    if (step > MAX_GAP_SECONDS) {
      begin = i;
      continue;
    }
    if (step <= 0 || step % intervalSeconds !== 0) throw new InvalidTimeSeriesError(i, step, intervalSeconds);
  }
  if (begin >= samples.length) return [];
  const out: Sample[] = [samples[begin]!];
  for (let i = begin + 1; i < samples.length; i++) {
    const prev = samples[i - 1]!;
    const cur = samples[i]!;
    const times = (cur.timestamp - prev.timestamp) / intervalSeconds;
    const slope = (cur.value - prev.value) / times;
    for (let j = 1; j < times; j++)
      out.push({ timestamp: prev.timestamp + intervalSeconds * j, value: prev.value + slope * j });
    out.push(cur);
  }
  return out;
}

/** Drops samples from the front until the count is a whole number of `unitSeconds` (Crane truncates to hours). */
export function truncateToUnit<T>(samples: readonly T[], intervalSeconds: number, unitSeconds: number): T[] {
  const perUnit = Math.trunc(unitSeconds / intervalSeconds);
  if (perUnit <= 0) return [...samples];
  return samples.slice(samples.length % perUnit);
}

/**
 * Crane's `removeExtremeOutliers`: from the second sample on, a value above P99.9 or below P0.1 becomes the
 * (already processed) previous value. With fewer than 1,000 samples P0.1 is out of range, Crane ignores the
 * error, and nothing is replaced. Returns a new array.
 */
export function removeExtremeOutliers(values: readonly number[] | Float64Array): Float64Array {
  const out = Float64Array.from(values);
  let hi: number;
  let lo: number;
  try {
    const sorted = Float64Array.from(out).sort();
    hi = percentileOfSorted(sorted, 99.9);
    lo = percentileOfSorted(sorted, 0.1);
  } catch {
    return out;
  }
  for (let i = 1; i < out.length; i++) if (out[i]! > hi || out[i]! < lo) out[i] = out[i - 1]!;
  return out;
}

/**
 * The whole of Crane's pre-processing of one series: gaps and linear fill, whole hours, outliers (de-trending is a
 * no-op in Crane).
 */
export function preprocessSeries(samples: readonly Sample[], intervalSeconds: number, unitSeconds = 3600): Sample[] {
  const filled = truncateToUnit(fillGaps(samples, intervalSeconds), intervalSeconds, unitSeconds);
  const values = removeExtremeOutliers(filled.map((s) => s.value));
  return filled.map((s, i) => (s.value === values[i] ? s : { timestamp: s.timestamp, value: values[i]! }));
}
