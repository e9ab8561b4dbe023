import { describe, expect, it } from 'vitest';
import { InvalidTimeSeriesError } from './errors.js';
import { fillGaps, preprocessSeries, removeExtremeOutliers, truncateToUnit, type Sample } from './preprocess.js';
import { seededRandom } from './random.js';
import { truncateToPeriods } from './truncate.js';

const pairs = (xs: Array<[number, number]>): Sample[] => xs.map(([timestamp, value]) => ({ timestamp, value }));

describe("pre-processing (Crane's preProcessTimeSeries)", () => {
  const pre01Input = pairs([
    [1_699_992_840, 0.1],
    [1_699_992_900, 0.8],
    [1_699_999_440, 1.0],
    [1_699_999_620, 1.3],
    [1_700_000_040, 2.0],
  ]);

  it('pre-01: a gap over an hour drops what precedes it, holes are filled on a line, <1000 samples are not clipped', () => {
    const got = preprocessSeries(pre01Input, 60, 60);
    expect(got.map((s) => s.timestamp)).toEqual(Array.from({ length: 11 }, (_, k) => 1_699_999_440 + 60 * k));
    const want = [1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9, 2.0];
    got.forEach((s, i) => expect(Math.abs(s.value - want[i]!)).toBeLessThan(1e-9));
  });

  it('pre-02: a second pass with a 600 s unit truncates 11 samples to 10 from the front', () => {
    const got = preprocessSeries(preprocessSeries(pre01Input, 60, 60), 60, 600);
    expect(got.map((s) => s.timestamp)).toEqual(Array.from({ length: 10 }, (_, k) => 1_699_999_500 + 60 * k));
    const want = [1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9, 2.0];
    got.forEach((s, i) => expect(Math.abs(s.value - want[i]!)).toBeLessThan(1e-9));
  });

  it.each([
    [
      'pre-03: a 90 s step with a 60 s interval',
      pairs([
        [0, 1],
        [90, 2],
      ]),
    ],
    [
      'pre-04: non-increasing timestamps',
      pairs([
        [0, 1],
        [0, 2],
      ]),
    ],
  ])('%s is an invalid time series', (_name, input) => {
    expect(() => preprocessSeries(input, 60, 60)).toThrow(InvalidTimeSeriesError);
    expect(() => preprocessSeries(input, 60, 60)).toThrow(/invalid time series/);
  });

  it('pre-05: whole-hour truncation drops the first 30 of 150 one-minute samples', () => {
    const got = preprocessSeries(
      Array.from({ length: 150 }, (_, i) => ({ timestamp: 60 * i, value: i })),
      60,
    );
    expect(got).toHaveLength(120);
    expect(got[0]).toEqual({ timestamp: 1800, value: 30 });
  });

  it('pre-06: a 3-day query (4381 points, both ends) leaves 4380 after whole hours and 4320 after whole days', () => {
    const input = Array.from({ length: 4381 }, (_, i) => ({ timestamp: 1_700_006_400 + 60 * i, value: 1 + (i % 7) }));
    const got = preprocessSeries(input, 60);
    expect(got).toHaveLength(4380);
    const days = truncateToPeriods(
      Float64Array.from(got, (s) => s.value),
      1 / 60,
      86_400,
    );
    expect(days.multiple).toBe(3);
    expect(days.samples).toHaveLength(4320);
  });

  it('stops at the first bad step even when a later gap would have dropped it (Crane walks forward)', () => {
    expect(() =>
      fillGaps(
        pairs([
          [0, 1],
          [90, 2],
          [10_000, 3],
          [10_060, 4],
        ]),
        60,
      ),
    ).toThrow(InvalidTimeSeriesError);
  });

  it('keeps only what follows the last gap', () => {
    const got = fillGaps(
      pairs([
        [0, 1],
        [4000, 2],
        [4060, 3],
        [8000, 4],
        [8060, 5],
      ]),
      60,
    );
    expect(got).toEqual(
      pairs([
        [8000, 4],
        [8060, 5],
      ]),
    );
  });

  it('truncateToUnit drops from the front', () => {
    expect(truncateToUnit([1, 2, 3, 4, 5, 6, 7], 60, 180)).toEqual([2, 3, 4, 5, 6, 7]);
  });
});

describe("outlier removal (Crane's removeExtremeOutliers)", () => {
  it('out-01: spikes in 10,080 uniform values take the previous value', () => {
    const r = seededRandom(10_080);
    const v = Array.from({ length: 10_080 }, () => r());
    v[1000] = 3.5;
    v[3000] = -1;
    v[8000] = 1000;
    const got = removeExtremeOutliers(v);
    expect(got[1000]).toBe(got[999]);
    expect(got[3000]).toBe(got[2999]);
    expect(got[8000]).toBe(got[7999]);
    expect(got[1000]).toBeLessThan(1);
  });

  it('out-02: with 2000 values, P99.9 averages two (rank 1998.0000000000002) and clips exactly three samples', () => {
    const v = Array.from({ length: 2000 }, (_, i) => ((i * 7919) % 2003) / 2003);
    v[500] = 5.0;
    v[1500] = -3.0;
    const got = removeExtremeOutliers(v);
    const changed = [...got].flatMap((x, i) => (x === v[i] ? [] : [[i, v[i], x]]));
    expect(changed).toEqual([
      [280, 0.9995007488766849, 0.04593110334498253],
      [500, 5.0, 0.8312531203195207],
      [1500, -3.0, 0.40089865202196706],
    ]);
  });

  it('out-03: with 999 values P0.1 is out of range, the error is ignored, and even a 1e6 spike stays', () => {
    const v = Array.from({ length: 999 }, (_, i) => (i * 37) % 101);
    v[500] = 1_000_000;
    expect([...removeExtremeOutliers(v)]).toEqual(v);
  });
});
