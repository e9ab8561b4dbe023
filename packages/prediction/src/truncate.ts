/**
 * Crane's `Signal.Truncate`: keep the last whole multiples of `periodSeconds`. `multiple` is how many periods are
 * kept; a signal shorter than one period gives `{ samples: undefined, multiple: 0 }`.
 */
export function truncateToPeriods(
  samples: Float64Array,
  sampleRateHz: number,
  periodSeconds: number,
): { samples: Float64Array | undefined; multiple: number } {
  if (samples.length / sampleRateHz < periodSeconds) return { samples: undefined, multiple: 0 };
  const perPeriod = Math.trunc(periodSeconds * sampleRateHz);
  const multiple = Math.floor(samples.length / perPeriod);
  return { samples: samples.subarray(samples.length - multiple * perPeriod), multiple };
}
