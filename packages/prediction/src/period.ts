import { autoCorrelation } from './auto-correlation.js';
import { fft, magnitudes } from './fft.js';
import { isPeak } from './peak.js';
import { seededRandom, shuffleInPlace } from './random.js';
import { truncateToPeriods } from './truncate.js';

export const DAY_SECONDS = 86_400;
export const WEEK_SECONDS = 7 * DAY_SECONDS;
/** The only periods Crane predicts with; any other detected period means "not periodic". */
export const ACCEPTED_PERIODS: readonly number[] = [DAY_SECONDS, WEEK_SECONDS];
/** Seed of the significance shuffles when the caller gives none. */
export const DEFAULT_PERIOD_SEED = 0x5eed;

const SHUFFLES = 100;
/** Crane's `MaxAutoCorrelationPeakSearchIntervalSeconds`. */
const PEAK_SEARCH_SECONDS = 4 * 3600;

/**
 * The significance threshold of Crane's `FindPeriod`: the second largest, over 100 cumulative random permutations
 * of the samples, of the largest |X[k]| for 1 ≤ k < N/2. Two permutations share one complex transform (one as the
 * real part, one as the imaginary part, separated by conjugate symmetry), which halves the work and changes nothing
 * but rounding.
 */
function significanceThreshold(samples: Float64Array, random: () => number): number {
  const n = samples.length;
  const half = Math.floor(n / 2);
  const x = Float64Array.from(samples);
  const a = new Float64Array(n);
  const z = { re: new Float64Array(n), im: new Float64Array(n) };
  const maxima: number[] = [];
  for (let i = 0; i < SHUFFLES; i += 2) {
    shuffleInPlace(x, random);
    a.set(x);
    shuffleInPlace(x, random);
    fft(a, x, z);
    // squared magnitudes: the square root is only taken of the two maxima
    let maxA = 0;
    let maxB = 0;
    for (let k = 1; k < half; k++) {
      const zr = z.re[k]!;
      const zi = z.im[k]!;
      const wr = z.re[n - k]!;
      const wi = z.im[n - k]!;
      // A[k] = (Z[k] + conj Z[N−k]) / 2,  B[k] = (Z[k] − conj Z[N−k]) / 2i
      const pa = (zr + wr) ** 2 + (zi - wi) ** 2;
      const pb = (zi + wi) ** 2 + (wr - zr) ** 2;
      if (pa > maxA) maxA = pa;
      if (pb > maxB) maxB = pb;
    }
    maxima.push(Math.sqrt(maxA) / 2, Math.sqrt(maxB) / 2);
  }
  maxima.sort((p, q) => p - q);
  return maxima[SHUFFLES - 2]!;
}

/**
 * Crane's `Signal.FindPeriod`: candidate lags `floor(N/k)` from spectrum bins above a permutation significance
 * threshold, kept when the autocorrelation has a peak there; the highest such peak wins. Returns whole seconds,
 * or -1 when there is none. The shuffles use a generator seeded with `seed` (Crane seeds from the clock).
 */
export function findPeriod(samples: Float64Array, sampleRateHz: number, seed: number = DEFAULT_PERIOD_SEED): number {
  const n = samples.length;
  if (n < 4) return -1;
  const threshold = significanceThreshold(samples, seededRandom(seed));
  const power = magnitudes(fft(samples));
  const hints: number[] = [];
  for (let k = 2; k < Math.floor(n / 2); k++) {
    if (power[k]! > threshold) {
      const lag = Math.floor(n / k);
      if (hints.length === 0 || hints[hints.length - 1]! > lag) hints.push(lag);
    }
  }
  if (hints.length === 0) return -1;
  const cor = autoCorrelation(samples);
  const maxR = Math.trunc(PEAK_SEARCH_SECONDS * sampleRateHz);
  let best = -1;
  let bestCor = 0;
  for (const lag of hints) {
    const r = Math.min(maxR, Math.floor(lag / 2));
    if (isPeak(cor, lag, r) && bestCor < cor[lag]!) {
      best = lag;
      bestCor = cor[lag]!;
    }
  }
  return best < 0 ? -1 : Math.trunc(best / sampleRateHz);
}

export interface PeriodDetection {
  /** Seconds as `FindPeriod` returned it, -1 for none (also when the history is too short to look). */
  readonly detectedSeconds: number;
  /** The detected period when Crane predicts with it (exactly a day or a week), otherwise undefined. */
  readonly periodSeconds: number | undefined;
  /** Which whole periods were analysed: the last whole weeks (≥ 2 weeks of data), days (≥ 2 days), or none. */
  readonly window: 'weeks' | 'days' | 'none';
}

/**
 * Crane's period detection on a pre-processed series: the last whole weeks when it holds at least two, else the
 * last whole days when it holds at least two, else nothing (so a weekly pattern needs 14 days of history and no
 * period is found in less than 48 hours). Only exactly one day or one week counts.
 */
export function detectPeriod(values: Float64Array, sampleRateHz: number, seed?: number): PeriodDetection {
  let window: PeriodDetection['window'] = 'none';
  let analysed: Float64Array | undefined;
  if (values.length >= 2 * Math.trunc(WEEK_SECONDS * sampleRateHz)) {
    window = 'weeks';
    analysed = truncateToPeriods(values, sampleRateHz, WEEK_SECONDS).samples;
  } else if (values.length >= 2 * Math.trunc(DAY_SECONDS * sampleRateHz)) {
    window = 'days';
    analysed = truncateToPeriods(values, sampleRateHz, DAY_SECONDS).samples;
  }
  const detectedSeconds = analysed ? findPeriod(analysed, sampleRateHz, seed) : -1;
  return {
    detectedSeconds,
    periodSeconds: ACCEPTED_PERIODS.includes(detectedSeconds) ? detectedSeconds : undefined,
    window,
  };
}
