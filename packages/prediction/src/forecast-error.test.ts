import { describe, expect, it } from 'vitest';
import { forecastError } from './forecast-error.js';

type Series = Array<[number, number]>;

describe('forecastError: the mean absolute percentage error of past forecasts over the last window', () => {
  it('a worked case: four minutes, each error by hand', () => {
    // t      forecast  actual  |f − a| / a
    // 60     2.2       2.0     0.1
    // 120    1.5       2.0     0.25
    // 180    3.0       3.0     0
    // 240    3.3       3.0     0.1
    // mean = (0.1 + 0.25 + 0 + 0.1) / 4 = 0.1125
    const got = forecastError({
      forecast: [
        [60, 2.2],
        [120, 1.5],
        [180, 3],
        [240, 3.3],
      ],
      actual: [
        [60, 2],
        [120, 2],
        [180, 3],
        [240, 3],
      ],
      now: 240,
      windowSeconds: 240,
    });
    expect(got?.samples).toBe(4);
    expect(got?.mape).toBeCloseTo(0.1125, 12);
    expect(got?.windowSeconds).toBe(240);
  });

  it.each<{ name: string; forecast: Series; actual: Series; now: number; window: number; want?: [number, number] }>([
    {
      name: 'a perfect forecast has no error',
      forecast: [
        [0, 1],
        [60, 2],
      ],
      actual: [
        [0, 1],
        [60, 2],
      ],
      now: 60,
      window: 120,
      want: [0, 2],
    },
    {
      name: 'only the window (now − window, now] counts: the start is left out, the end kept',
      forecast: [
        [0, 10],
        [60, 1],
        [120, 3],
      ],
      actual: [
        [0, 1],
        [60, 1],
        [120, 2],
      ],
      now: 120,
      window: 120,
      want: [0.25, 2],
    },
    {
      name: 'instants without a forecast, or without an observation, are not compared',
      forecast: [
        [60, 4],
        [180, 9],
      ],
      actual: [
        [60, 2],
        [120, 2],
      ],
      now: 180,
      window: 600,
      want: [1, 1],
    },
    {
      name: 'an observation below 0.001 has no percentage and is skipped',
      forecast: [
        [60, 1],
        [120, 1.5],
      ],
      actual: [
        [60, 0],
        [120, 1],
      ],
      now: 120,
      window: 600,
      want: [0.5, 1],
    },
    { name: 'nothing to compare: undefined', forecast: [[60, 1]], actual: [[120, 1]], now: 120, window: 600 },
    { name: 'no history at all: undefined', forecast: [], actual: [], now: 120, window: 600 },
  ])('$name', ({ forecast, actual, now, window, want }) => {
    const got = forecastError({ forecast, actual, now, windowSeconds: window });
    if (want === undefined) expect(got).toBeUndefined();
    else expect(got && [Math.round(got.mape * 1e9) / 1e9, got.samples]).toEqual(want);
  });
});
