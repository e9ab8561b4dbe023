import type { Estimator, FftEstimator } from './config.js';
import { fft, ifft, type Spectrum } from './fft.js';
import { valuesAtRanks } from './order-statistics.js';

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
 * low-frequency component below the threshold keeps only half its amplitude (Crane's quirk, kept on purpose). A
 * mirror bin's amplitude is its partner's, so a component at exactly the threshold keeps both halves.
 */
export function fftFilteredLastPeriod(
  spectrum: Spectrum,
  sampleRateHz: number,
  periodSamples: number,
  params: FilterParams,
): Float64Array {
  const n = spectrum.re.length;
  const amplitude = new Float64Array(n);
  // A real signal's spectrum is conjugate-symmetric: bin N−k has bin k's amplitude. Taking it from bin k (rather
  // than from the transform's own rounding of bin N−k) makes a component whose amplitude is exactly the threshold
  // keep both halves, as Crane's (go-dsp's) transform does: a daily square wave's 50th harmonic is such a tie, and
  // losing its mirror half moved the forecast by 0.01–0.05 (5.0223 instead of Crane's 5.0328 at minute 0).
  for (let k = 0; k <= n >> 1; k++) amplitude[k] = Math.sqrt(spectrum.re[k]! ** 2 + spectrum.im[k]! ** 2) / n;
  for (let k = (n >> 1) + 1; k < n; k++) amplitude[k] = amplitude[n - k]!;
  // Crane sorts bins 1 … N/2−1 descending and reads positions maxItems−1, minItems−1 and the last; the i-th largest
  // of `count` values is the one at ascending rank count − i.
  const bins = amplitude.slice(1, Math.max(1, Math.floor(n / 2)));
  const count = bins.length;
  const { minNumOfSpectrumItems: minItems, maxNumOfSpectrumItems: maxItems } = params;
  let minAmplitude = params.lowAmplitudeThreshold;
  if (count > 0) {
    const [atMaxItems, atMinItems] = valuesAtRanks(bins, [count >= maxItems ? count - maxItems : 0, count - minItems]);
    minAmplitude = atMaxItems!;
    if (minAmplitude < params.lowAmplitudeThreshold) minAmplitude = params.lowAmplitudeThreshold;
    if (count >= minItems && atMinItems! < minAmplitude) minAmplitude = atMinItems!;
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
  // a plain loop: Float64Array#map with a callback costs about four times as much
  const out = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = values[i]! * (1 + marginFraction);
  return out;
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
