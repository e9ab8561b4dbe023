import { describe, expect, it } from 'vitest';
import type { FftEstimator } from './config.js';
import { estimate, fftEstimate, maxValueEstimate } from './estimators.js';

const wave = (n: number, f: (i: number) => number) => Float64Array.from({ length: n }, (_, i) => f(i));
const fftWith = (p: Partial<FftEstimator>): FftEstimator => ({
  type: 'fft',
  minNumOfSpectrumItems: 3,
  maxNumOfSpectrumItems: 100,
  highFrequencyThreshold: 1 / 3600,
  lowAmplitudeThreshold: 1,
  marginFraction: 0,
  ...p,
});
const { cos, PI } = Math;

describe("Crane's estimators (one period of output)", () => {
  it("est-01: max value takes each phase's maximum over the whole periods, times 1 + margin", () => {
    const got = maxValueEstimate(Float64Array.from([1, 2, 3, 4, 2, 1, 5, 0, 3, 3, 3, 3]), 4, 0.1);
    [3.3000000000000003, 3.3000000000000003, 5.5, 4.4].forEach((w, i) =>
      expect(Math.abs(got[i]! - w)).toBeLessThan(1e-12),
    );
  });

  it.each([
    [
      'est-02: 3rd largest amplitude (0) is below lowAmp, so nothing is removed: exact reconstruction',
      fftWith({ minNumOfSpectrumItems: 3 }),
      wave(8, (i) => 10 + 3 * cos((2 * PI * i) / 8) + 0.5 * cos((2 * PI * 3 * i) / 8)),
      [13.5, 11.767766952966369, 10, 8.232233047033631, 6.5, 8.232233047033631, 10, 11.767766952966369],
    ],
    [
      'est-03: threshold = lowAmp 1.0 removes the 0.25-amplitude 3rd harmonic, DC kept',
      fftWith({ minNumOfSpectrumItems: 1 }),
      wave(8, (i) => 10 + 3 * cos((2 * PI * i) / 8) + 0.5 * cos((2 * PI * 3 * i) / 8)),
      [13, 12.121320343559642, 10, 7.878679656440357, 7, 7.878679656440357, 10, 12.121320343559642],
    ],
    [
      'est-04: mirror-bin quirk: the low-frequency bin survives, its mirror is zeroed, half the amplitude remains',
      fftWith({ minNumOfSpectrumItems: 1, highFrequencyThreshold: 0.2 }),
      wave(8, (i) => 10 + 0.4 * cos((2 * PI * i) / 8) + 3 * cos((2 * PI * 2 * i) / 8)),
      [13.2, 10.14142135623731, 7, 9.85857864376269, 12.8, 9.85857864376269, 7, 10.14142135623731],
    ],
    [
      'est-05: non-positive reconstructed values become 0.01 before the (1 + margin) factor',
      fftWith({ minNumOfSpectrumItems: 3, marginFraction: 0.1 }),
      wave(8, (i) => 1 + 3 * cos((2 * PI * i) / 8)),
      [
        4.4, 3.433452377915607, 1.1000000000000003, 0.011000000000000001, 0.011000000000000001, 0.011000000000000001,
        1.0999999999999996, 3.4334523779156068,
      ],
    ],
    [
      'est-06: the all-default FFT estimator returns the last period only',
      fftWith({}),
      wave(16, (i) => 10 + 3 * cos((2 * PI * i) / 8)),
      [13, 12.121320343559642, 10, 7.878679656440357, 7, 7.878679656440357, 10, 12.121320343559642],
    ],
  ])('%s', (_name, estimator, signal, want) => {
    const got = fftEstimate(signal, 1, 8, estimator);
    expect(got).toHaveLength(8);
    want.forEach((w, i) => expect(Math.abs(got[i]! - w)).toBeLessThan(1e-9));
  });

  it('estimate dispatches on the estimator type', () => {
    const s = Float64Array.from([1, 2, 3, 4, 2, 1, 5, 0]);
    expect(estimate({ type: 'maxValue', marginFraction: 0 }, s, 1, 4)).toEqual(Float64Array.from([2, 2, 5, 4]));
  });
});
