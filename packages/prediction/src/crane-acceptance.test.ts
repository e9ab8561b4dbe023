// Issue 19: DSP forecasts equal to Crane's on the cases Crane's own code was run on (gocrane/crane pkg/prediction/dsp
// with mjibson/go-dsp; default estimators, one sample a minute, t0 a midnight UTC). The numbers below are Crane's.
import { describe, expect, it } from 'vitest';
import { DEFAULT_DSP_CONFIG, DEFAULT_ESTIMATORS, estimatorName } from './config.js';
import { estimate } from './estimators.js';
import { predict } from './predict.js';
import type { Sample } from './preprocess.js';
import { selectEstimator } from './select-estimator.js';
import { truncateToPeriods } from './truncate.js';

const T0 = 1_700_006_400;
const RATE = 1 / 60;
const history = (minutes: number, f: (i: number) => number): Sample[] =>
  Array.from({ length: minutes }, (_, i) => ({ timestamp: T0 + 60 * i, value: f(i) }));
const sine = (i: number) => 10 + 5 * Math.sin((2 * Math.PI * i) / 1440);
/** 20 from 08:00 to 20:00 UTC, 5 otherwise. */
const square = (i: number) => (i % 1440 >= 480 && i % 1440 < 1200 ? 20 : 5);
const ONE_PERCENT = 'marginFraction: 0.010000';

describe("Crane's DSP on a clean daily sine: the forecast is 1.01 × the true continuation", () => {
  // Crane's estimator stage (bestEstimator on the whole days, then the winner re-run on all of them): every default
  // estimator reconstructs the sine to rounding, so the 1 % margin wins and the forecast is 1.01 × the truth.
  it.each([
    ['3 days', 3 * 1440],
    ['73 hours (3 whole days analysed)', 73 * 60],
    ['exactly 2 days', 2 * 1440],
  ])('%s: ratio within 1e-7 at every point', (_name, n) => {
    const series = Float64Array.from({ length: n }, (_, i) => sine(i));
    const whole = truncateToPeriods(series, RATE, 86_400);
    const { best } = selectEstimator(DEFAULT_ESTIMATORS, whole.samples!, whole.multiple, RATE);
    expect(estimatorName(best!)).toContain(ONE_PERCENT);
    const forecast = estimate(best!, whole.samples!, RATE, 1440);
    forecast.forEach((v, k) => {
      expect(Math.abs(v / (1.01 * sine(n + k)) - 1)).toBeLessThan(1e-7);
    });
  });
});

describe("Crane's DSP on a daily square wave (5 / 20, 3 days)", () => {
  // The 50th largest spectrum item (the 99th harmonic) is exactly the amplitude threshold, so it stays, and so does
  // its mirror bin, whose amplitude is the same: losing that half gave 5.0223, 5.0495, 20.2005, 5.0223.
  const got = predict(history(3 * 1440, square), DEFAULT_DSP_CONFIG);

  it('picks the estimator with at least 50 spectrum items (low-amplitude threshold 0.05) and a 1 % margin', () => {
    expect(got.periodSeconds).toBe(86_400);
    expect(got.estimator).toBe(
      'FFT Estimator {minNumOfSpectrumItems: 50, maxNumOfSpectrumItems: 100, highFrequencyThreshold: 0.000278, ' +
        'lowAmplitudeThreshold: 0.050000, marginFraction: 0.010000}',
    );
  });

  it.each([
    [0, 5.0328],
    [120, 5.0975],
    [840, 20.1525],
    [1439, 5.0118],
  ])('forecasts %i minutes after midnight as Crane does: %d', (minute, crane) => {
    const [t, v] = got.samples[minute]!;
    expect(t).toBe(T0 + 60 * (3 * 1440 + minute));
    expect(v).toBeCloseTo(crane, 4);
  });
});
