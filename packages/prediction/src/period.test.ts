import { describe, expect, it } from 'vitest';
import { detectPeriod, findPeriod } from './period.js';
import { seededRandom } from './random.js';

const RATE = 1 / 60;
const PER_DAY = 1440;
const series = (n: number, f: (i: number) => number) => Float64Array.from({ length: n }, (_, i) => f(i));
const dailySine = (i: number) => 10 + 5 * Math.sin((2 * Math.PI * i) / PER_DAY);
/** Busy weekdays, quiet weekends: the day's shape repeats, its level does not. */
const weekdayWeekend = (i: number) => {
  const day = Math.floor(i / PER_DAY) % 7;
  const level = day >= 5 ? 3 : 12;
  return 2 + (level * (1 + Math.sin((2 * Math.PI * i) / PER_DAY))) / 2;
};

describe("detectPeriod (Crane's period detection: a day or a week only)", () => {
  it.each([
    ['a clean daily sine over 2 days', 2 * PER_DAY, dailySine, 86_400, 'days'],
    ['a clean daily sine over 3 days', 3 * PER_DAY, dailySine, 86_400, 'days'],
    ['a weekday/weekend pattern over 14 days', 14 * PER_DAY, weekdayWeekend, 604_800, 'weeks'],
    ['a weekday/weekend pattern over 15 days', 15 * PER_DAY, weekdayWeekend, 604_800, 'weeks'],
    ['a weekday/weekend pattern over 13 days (weekly needs 14)', 13 * PER_DAY, weekdayWeekend, 86_400, 'days'],
  ])('%s → %is', (_name, n, f, period, window) => {
    const got = detectPeriod(series(n, f), RATE);
    expect(got).toEqual({ detectedSeconds: period, periodSeconds: period, window });
  });

  it('finds nothing in 36 hours: only one whole day', () => {
    expect(detectPeriod(series(36 * 60, dailySine), RATE)).toEqual({
      detectedSeconds: -1,
      periodSeconds: undefined,
      window: 'none',
    });
  });

  it('detects a 12-hour sine as 43200 s, which Crane does not predict with', () => {
    const got = detectPeriod(
      series(3 * PER_DAY, (i) => 10 + 5 * Math.sin((4 * Math.PI * i) / PER_DAY)),
      RATE,
    );
    expect(got).toEqual({ detectedSeconds: 43_200, periodSeconds: undefined, window: 'days' });
  });

  it.each([
    ['constant', (_i: number) => 7],
    ['a linear ramp', (i: number) => 1 + i / 100],
  ])('finds no period in %s', (_name, f) => {
    expect(detectPeriod(series(3 * PER_DAY, f), RATE).detectedSeconds).toBe(-1);
  });

  it("finds no period in uniform noise (30 series; noise is where Crane's randomised test can flip)", () => {
    const found = Array.from({ length: 30 }, (_, s) => {
      const r = seededRandom(7 * (s + 1));
      return findPeriod(
        series(3 * PER_DAY, () => r()),
        RATE,
      );
    });
    expect(found).toEqual(new Array(30).fill(-1));
  });

  it('is reproducible for a seed, and a clear signal does not depend on it', () => {
    const noisy = ((r) => series(3 * PER_DAY, (i) => dailySine(i) + 4 * (r() - 0.5)))(seededRandom(3));
    expect(findPeriod(noisy, RATE, 1)).toBe(findPeriod(noisy, RATE, 1));
    expect([1, 2, 3, 4].map((seed) => findPeriod(noisy, RATE, seed))).toEqual([86_400, 86_400, 86_400, 86_400]);
  });
});
