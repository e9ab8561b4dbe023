import { describe, expect, it } from 'vitest';
import { valuesAtRanks } from './order-statistics.js';
import { seededRandom } from './random.js';

const sortedAt = (values: Float64Array, ranks: number[]) => ranks.map((r) => Float64Array.from(values).sort()[r]);
/** toEqual does not tell -0 from 0: spell it out. */
const signed = (values: Array<number | undefined>) => values.map((v) => (Object.is(v, -0) ? '-0' : v));

describe('valuesAtRanks (selection with the results of a full sort)', () => {
  const r = seededRandom(31);
  const cases: Array<[string, Float64Array]> = [
    ['20,160 uniform values', Float64Array.from({ length: 20_160 }, () => r())],
    ['many ties', Float64Array.from({ length: 5_000 }, () => Math.floor(r() * 4))],
    [
      'signed zeros among negatives and positives',
      Float64Array.from({ length: 3_000 }, () => [-0, 0, -1, 1][Math.floor(r() * 4)]!),
    ],
    ['a NaN (sorted last)', Float64Array.from({ length: 1_000 }, (_, i) => (i === 400 ? Number.NaN : r() - 0.5))],
    ['one value', Float64Array.of(7)],
  ];
  it.each(cases)('%s', (_name, values) => {
    const n = values.length;
    const ranks = [
      0,
      n - 1,
      19,
      20,
      n - 22,
      n - 21,
      Math.floor(n / 2),
      Math.floor((3 * n) / 8),
      Math.floor((5 * n) / 8),
      20,
      -1,
      n,
      2.5,
    ];
    const got = valuesAtRanks(Float64Array.from(values), ranks);
    expect(signed(got)).toEqual(signed(sortedAt(values, ranks)));
  });
});
