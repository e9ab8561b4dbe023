import { describe, expect, it } from 'vitest';
import { memberReplicas } from './member-replicas.js';

describe('memberReplicas', () => {
  it.each([
    { current: 4, min: 1, max: 3, scalingToZero: false, want: 3 },
    { current: 1, min: 3, max: 10, scalingToZero: false, want: 3 },
    { current: 5, min: 3, max: 10, scalingToZero: true, want: 5 },
    { current: 0, min: 1, max: 5, scalingToZero: false, want: 1 },
    { current: 0, min: 1, max: 5, scalingToZero: true, want: 0 },
  ])(
    'current $current into [$min, $max] (scalingToZero $scalingToZero) -> $want',
    ({ current, min, max, scalingToZero, want }) => {
      expect(memberReplicas(current, min, max, scalingToZero)).toBe(want);
    },
  );
});
