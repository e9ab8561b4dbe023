import type { Estimator, FftEstimator } from './config.js';
import { fft, ifft, type Spectrum } from './fft.js';

/** Crane's floor for a non-positive FFT reconstruction (`defaultFFTMinValue`). */
const FFT_MIN_VALUE = 0.01;

/**
 * Crane's max-value estimator: for each phase of the last period, the maximum of that phase over every whole
 * period present, times 1 + margin.
 */
export function maxValueEstimate(signal: Float64Array, periodSamples: number, marginFraction: number): Float64Array {
  const n = signal.length;
  const periods = Math.floor(n / periodSamples);
  const out = new Float64Array(periodSamples);
  for (let i = n - periodSamples; i < n; i++) {
    let max = signal[i]!;
    for (let j = 1; j < periods; j++) if (max < signal[i - periodSamples * j]!) max = signal[i - periodSamples * j]!;
    out[i - (n - periodSamples)] = max * (1 + marginFraction);
  }
  return out;
}

type FilterParams = Pick<
  FftEstimator,
  'minNumOfSpectrumItems' | 'maxNumOfSpectrumItems' | 'highFrequencyThreshold' | 'lowAmplitudeThreshold'
>;

/**
 * The margin-free part of Crane's FFT estimator on a precomputed spectrum: zero every bin whose amplitude is below
 * the threshold and whose frequency `k·rate/N` is above `highFrequencyThreshold`, inverse-transform, keep the real
 * part of the last period with non-positive values raised to 0.01.
 *
 * The threshold keeps components with amplitude ≥ max(lowAmplitudeThreshold, maxItems-th largest) but always at
 * least the top minItems. Frequencies are computed for all bins, so mirror bins N−k count as high frequency: a
 * low-frequency component below the threshold keeps only half its amplitude (Crane's quirk, kept on purpose).
 */
export function fftFilteredLastPeriod(
  spectrum: Spectrum,
  sampleRateHz: number,
  periodSamples: number,
  params: FilterParams,
): Float64Array {
  const n = spectrum.re.length;
  const amplitude = new Float64Array(n);
  for (let k = 0; k < n; k++) amplitude[k] = Math.sqrt(spectrum.re[k]! ** 2 + spectrum.im[k]! ** 2) / n;
  const sorted = amplitude
    .slice(1, Math.max(1, Math.floor(n / 2)))
    .sort()
    .reverse();
  const { minNumOfSpectrumItems: minItems, maxNumOfSpectrumItems: maxItems } = params;
  let minAmplitude = params.lowAmplitudeThreshold;
  if (sorted.length > 0) {
    minAmplitude = sorted.length >= maxItems ? sorted[maxItems - 1]! : sorted[sorted.length - 1]!;
    if (minAmplitude < params.lowAmplitudeThreshold) minAmplitude = params.lowAmplitudeThreshold;
    if (sorted.length >= minItems && sorted[minItems - 1]! < minAmplitude) minAmplitude = sorted[minItems - 1]!;
  }
  const re = Float64Array.from(spectrum.re);
  const im = Float64Array.from(spectrum.im);
  for (let k = 0; k < n; k++) {
    if (amplitude[k]! < minAmplitude && (k * sampleRateHz) / n > params.highFrequencyThreshold) {
      re[k] = 0;
      im[k] = 0;
    }
  }
  const back = ifft(re, im);
  const out = new Float64Array(periodSamples);
  for (let i = 0; i < periodSamples; i++) {
    const v = back.re[n - periodSamples + i]!;
    out[i] = v <= 0 ? FFT_MIN_VALUE : v;
  }
  return out;
}

/** Crane's FFT estimator: a smoothed copy of the most recent period, times 1 + margin. */
export function fftEstimate(
  signal: Float64Array,
  sampleRateHz: number,
  periodSamples: number,
  estimator: FftEstimator,
): Float64Array {
  return withMargin(
    fftFilteredLastPeriod(fft(signal), sampleRateHz, periodSamples, estimator),
    estimator.marginFraction,
  );
}

export function withMargin(values: Float64Array, marginFraction: number): Float64Array {
  return values.map((v) => v * (1 + marginFraction));
}

/** One period (`periodSamples` values) as `estimator` predicts it from `signal`. */
export function estimate(
  estimator: Estimator,
  signal: Float64Array,
  sampleRateHz: number,
  periodSamples: number,
): Float64Array {
  return estimator.type === 'maxValue'
    ? maxValueEstimate(signal, periodSamples, estimator.marginFraction)
    : fftEstimate(signal, sampleRateHz, periodSamples, estimator);
}
