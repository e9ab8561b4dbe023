import { describe, expect, it } from 'vitest';
import { predictionError } from './accuracy.js';

const actual = Array.from({ length: 100 }, (_, k) => Math.sin(2 * Math.PI * 2 * (k / 100)) + 3);

describe("predictionError (Crane's asymmetric MAPE with MAE fallback)", () => {
  it.each([
    ['acc-01: 10 % over', actual, actual.map((a) => a * 1.1), 0.1],
    ['acc-02: 10 % under is amplified to -ln(0.9)/ln(1.25)', actual, actual.map((a) => a * 0.9), 0.4721647344828153],
    ['acc-03: an actual below 0.001 falls back to the mean absolute error', [0, 1, 2], [1, 1, 1], 0.6666666666666666],
    ['acc-04: 50 % under counts 3.106', [10, 10], [10, 5], 1.553141859752695],
  ])('%s', (_name, a, p, want) => {
    expect(Math.abs(predictionError(a, p) - want)).toBeLessThan(1e-10);
  });

  it('is NaN when the lengths differ, which makes selection skip the estimator', () => {
    expect(predictionError([1, 2], [1])).toBeNaN();
  });
});
