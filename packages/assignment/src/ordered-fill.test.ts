import { describe, expect, it } from 'vitest';
import { fillInOrder } from './ordered-fill.js';

const rooms = (r: Record<string, number>) => Object.entries(r).map(([name, available]) => ({ name, available }));
const fill = (total: number, order: Record<string, number>, caps?: number[]) => {
  const rs = rooms(order);
  const shares = fillInOrder(total, rs, caps);
  return Object.fromEntries(rs.map((r, i) => [r.name, shares[i]]));
};

describe('fillInOrder', () => {
  it.each<{ name: string; total: number; order: Record<string, number>; want: Record<string, number> }>([
    {
      name: 'fills in order up to each availability, the rest to the first',
      total: 24,
      order: { a: 8, b: 2, c: 2 },
      want: { a: 20, b: 2, c: 2 },
    },
    { name: 'stops when the total runs out', total: 8, order: { a: 8, b: 2, c: 2 }, want: { a: 8, b: 0, c: 0 } },
    { name: 'no room anywhere: everything to the first', total: 5, order: { a: 0, b: 0 }, want: { a: 5, b: 0 } },
  ])('$name', ({ total, order, want }) => {
    expect(fill(total, order)).toEqual(want);
  });

  it('a min fill stays within the max fill', () => {
    expect(fill(3, { a: 0, b: 0 }, [1, 2])).toEqual({ a: 1, b: 2 });
  });
});
