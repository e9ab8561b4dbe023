import { describe, expect, it } from 'vitest';
import { PercentileRangeError } from './errors.js';
import { percentile, percentileIndex } from './percentile.js';

describe('percentile (montanaflynn/stats v0.6.6)', () => {
  it.each([
    [4320, 4315.68, 4.32],
    [10_080, 10_069.920000000002, 10.08],
    [1000, 999.0000000000001, 1.0],
  ])('ranks of P99.9 and P0.1 for %i values', (n, hi, lo) => {
    expect(percentileIndex(99.9, n)).toBe(hi);
    expect(percentileIndex(0.1, n)).toBe(lo);
  });

  it('takes the value at a whole rank and the mean of the neighbours at a fractional one', () => {
    const values = [5, 1, 4, 2, 3];
    expect(percentile(values, 40)).toBe(2); // rank 2
    expect(percentile(values, 50)).toBe(2.5); // rank 2.5: mean of 2 and 3
    expect(percentile(values, 100)).toBe(5);
  });

  it('is out of range when the rank is at most 1 but not whole, or the input is empty', () => {
    expect(() =>
      percentile(
        Array.from({ length: 999 }, (_, i) => i),
        0.1,
      ),
    ).toThrow(PercentileRangeError);
    expect(() => percentile([], 50)).toThrow(PercentileRangeError);
    expect(() => percentile([1, 2], 0)).toThrow(PercentileRangeError);
  });
});
