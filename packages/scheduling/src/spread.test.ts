import { describe, expect, it } from 'vitest';
import { selectGroups } from './spread.js';

const g = (name: string, value: number, weight = 0) => ({ name, value, weight });
const names = (gs: { name: string }[]) => gs.map((x) => x.name);

describe('selectGroups', () => {
  it.each([
    {
      case: 'min=max=2 over values 2,3,6,7 to reach 7: the highest total value wins',
      groups: [g('a', 2), g('b', 3), g('c', 6), g('d', 7)],
      min: 2,
      max: 2,
      target: 7,
      want: ['c', 'd'],
    },
    {
      case: 'higher weight (score) beats higher value',
      groups: [g('a', 2, 100), g('b', 3), g('c', 6), g('d', 7)],
      min: 2,
      max: 2,
      target: 7,
      want: ['a', 'd'],
    },
    { case: 'nothing reaches the target', groups: [g('a', 1), g('b', 1)], min: 1, max: 2, target: 5, want: [] },
    {
      case: 'a feasible prefix of the winner is preferred',
      groups: [g('a', 5, 100), g('b', 5, 50), g('c', 1, 10)],
      min: 1,
      max: 3,
      target: 5,
      want: ['a'],
    },
    {
      case: 'minGroups forces more groups than needed',
      groups: [g('a', 10), g('b', 1), g('c', 2)],
      min: 2,
      max: 2,
      target: 1,
      want: ['a', 'c'],
    },
    { case: 'no groups', groups: [], min: 1, max: 1, target: 1, want: [] },
  ])('$case', ({ groups, min, max, target, want }) => {
    expect(names(selectGroups(groups, min, max, target))).toEqual(want);
  });
});
