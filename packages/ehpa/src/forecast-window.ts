import type { Forecast } from './prediction-proposal.js';

/** First index whose timestamp is ≥ t (samples in time order). */
function lowerBound(samples: Forecast['samples'], t: number): number {
  let lo = 0;
  let hi = samples.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (samples[mid]![0] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The part of a forecast the adapter looks at, [now, now + window] both ends included. A stored forecast covers a
 * day or more; a reconcile needs only its window, so a loop over many reconciles slices instead of scanning.
 */
export function forecastWindow(forecast: Forecast, nowSeconds: number, windowSeconds: number): Forecast {
  const from = lowerBound(forecast.samples, nowSeconds);
  const to = lowerBound(forecast.samples, nowSeconds + windowSeconds + 1);
  return { readiness: forecast.readiness, samples: forecast.samples.slice(from, to) };
}
