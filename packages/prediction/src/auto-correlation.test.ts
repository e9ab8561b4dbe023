import { describe, expect, it } from 'vitest';
import { autoCorrelation } from './auto-correlation.js';

describe("autoCorrelation (Crane's circular ACF of the standardised series)", () => {
  it('acf-01: a 5 Hz square-wave approximation sampled 1000 times is ±1 at whole and half periods', () => {
    const s = Float64Array.from({ length: 1000 }, (_, k) => {
      const x = k / 1000;
      const { sin, PI } = Math;
      return sin(2 * PI * 5 * x) + sin(6 * PI * 5 * x) / 3 + sin(10 * PI * 5 * x) / 5 + sin(14 * PI * 5 * x) / 7;
    });
    const acf = autoCorrelation(s);
    expect(Math.abs(acf[0]! - 1)).toBeLessThan(1e-12);
    expect(Math.abs(acf[100]! + 1)).toBeLessThan(1e-12);
    expect(Math.abs(acf[200]! - 1)).toBeLessThan(1e-12);
  });

  it('is NaN for a constant series (no deviation), as in Crane', () => {
    expect(autoCorrelation(new Float64Array(10).fill(3))[1]).toBeNaN();
    expect(autoCorrelation(new Float64Array(0))).toHaveLength(0);
  });
});
