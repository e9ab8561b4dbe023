import type { Estimator } from './config.js';
import { predictionError } from './accuracy.js';
import { fftFilteredLastPeriod, maxValueEstimate, withMargin } from './estimators.js';
import { fft, type Spectrum } from './fft.js';

export interface EstimatorScore {
  readonly estimator: Estimator;
  /** Prediction error on the last period (NaN when it could not be computed). */
  readonly error: number;
}

/**
 * Crane's `bestEstimator`: every estimator predicts the last of `periods` whole periods from the ones before it,
 * and the smallest prediction error wins (strict `<`, so the first in list order wins a tie). Returns undefined
 * when no estimator produced a finite error.
 *
 * Estimators that differ only in their margin share one transform and one filtered reconstruction (the 8 default
 * estimators need two), which is what makes a fit over weeks of one-minute data affordable.
 */
export function selectEstimator(
  estimators: readonly Estimator[],
  signal: Float64Array,
  periods: number,
  sampleRateHz: number,
): { best: Estimator | undefined; scores: EstimatorScore[] } {
  const periodSamples = Math.floor(signal.length / periods);
  const history = signal.subarray(0, (periods - 1) * periodSamples);
  const actual = signal.subarray((periods - 1) * periodSamples);
  let spectrum: Spectrum | undefined;
  const filtered = new Map<string, Float64Array>();
  const scores: EstimatorScore[] = [];
  let best: Estimator | undefined;
  let minError = Number.MAX_VALUE;
  for (const e of estimators) {
    let predicted: Float64Array;
    if (e.type === 'maxValue') {
      predicted = maxValueEstimate(history, periodSamples, e.marginFraction);
    } else {
      const key = `${e.minNumOfSpectrumItems}/${e.maxNumOfSpectrumItems}/${e.highFrequencyThreshold}/${e.lowAmplitudeThreshold}`;
      let base = filtered.get(key);
      if (!base) {
        spectrum ??= fft(history);
        base = fftFilteredLastPeriod(spectrum, sampleRateHz, periodSamples, e);
        filtered.set(key, base);
      }
      predicted = withMargin(base, e.marginFraction);
    }
    const error = predictionError(actual, predicted);
    scores.push({ estimator: e, error });
    if (error < minError) {
      minError = error;
      best = e;
    }
  }
  return { best, scores };
}
