import { describe, expect, it } from 'vitest';
import { hamiltonSplit, type HamiltonOptions } from './hamilton.js';

const parties = (weights: Record<string, number>) =>
  Object.entries(weights).map(([name, weight]) => ({ name, weight }));
const split = (total: number, weights: Record<string, number>, options?: HamiltonOptions) => {
  const ps = parties(weights);
  const shares = hamiltonSplit(total, ps, options);
  return Object.fromEntries(ps.map((p, i) => [p.name, shares[i]]));
};

describe('hamiltonSplit', () => {
  it.each<{ name: string; total: number; weights: Record<string, number>; want: Record<string, number> }>([
    {
      name: '10 by 1:2:3: quotas 1.67/3.33/5, the leftover unit to the larger fraction',
      total: 10,
      weights: { a: 1, b: 2, c: 3 },
      want: { a: 2, b: 3, c: 5 },
    },
    { name: 'exact quotas', total: 24, weights: { a: 1, b: 5, c: 2 }, want: { a: 3, b: 15, c: 6 } },
    { name: 'equal fractions go to the larger weight', total: 3, weights: { a: 2, b: 4 }, want: { a: 1, b: 2 } },
    {
      name: 'equal fractions and weights go by name',
      total: 2,
      weights: { c: 1, b: 1, a: 1 },
      want: { a: 1, b: 1, c: 0 },
    },
    { name: 'all weights 0 split equally', total: 4, weights: { a: 0, b: 0 }, want: { a: 2, b: 2 } },
    { name: 'a weight-0 party among others gets nothing', total: 5, weights: { a: 0, b: 1 }, want: { a: 0, b: 5 } },
    { name: 'one party takes everything', total: 7, weights: { only: 3 }, want: { only: 7 } },
    { name: 'zero total', total: 0, weights: { a: 1, b: 1 }, want: { a: 0, b: 0 } },
  ])('$name', ({ total, weights, want }) => {
    expect(split(total, weights)).toEqual(want);
  });

  it("raises every party with room to 1 before handing out the leftover (the proposal's min rule)", () => {
    // quotas 0.33/0.67/1: wholes 0/0/1, raised to 1/1/1 = 3 > 2, nothing left to hand out.
    expect(split(2, { a: 1, b: 2, c: 3 }, { atLeastOne: true })).toEqual({ a: 1, b: 1, c: 1 });
    // quotas 1.6/0.4: wholes 1/0, b raised to 1, nothing left.
    expect(split(2, { a: 4, b: 1 }, { atLeastOne: true })).toEqual({ a: 1, b: 1 });
  });

  it('does not raise a party whose cap is 0 and keeps every share within its cap', () => {
    expect(split(1, { a: 1, b: 1, c: 1 }, { caps: [1, 1, 0], atLeastOne: true })).toEqual({ a: 1, b: 1, c: 0 });
    expect(split(6, { a: 5, b: 1 }, { caps: [1, 9] })).toEqual({ a: 1, b: 5 });
  });

  it('keeps the sum equal to the total without atLeastOne', () => {
    for (let total = 0; total < 40; total++) {
      const shares = hamiltonSplit(total, parties({ a: 7, b: 3, c: 1, d: 13 }));
      expect(shares.reduce((s, v) => s + v, 0)).toBe(total);
    }
  });
});
