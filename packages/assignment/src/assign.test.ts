import { describe, expect, it } from 'vitest';
import { assignMinMax } from './assign.js';
import { AssignmentInputError } from './errors.js';
import type { AssignmentPolicy, ClusterFacts } from './types.js';

const facts = (name: string, available: number, staticWeight = 0, priority?: number): ClusterFacts => ({
  name,
  available,
  staticWeight,
  priority,
});

describe('assignMinMax: edge cases', () => {
  it.each<{
    name: string;
    policy: AssignmentPolicy;
    min: number;
    max: number;
    clusters: ClusterFacts[];
    want: Array<[string, number, number]>;
  }>([
    {
      name: 'StaticWeighted, max below the number of clusters: the third cluster gets no member HPA',
      policy: 'StaticWeighted',
      min: 1,
      max: 2,
      clusters: [facts('a', 5, 1), facts('b', 5, 1), facts('c', 5, 1)],
      want: [
        ['a', 1, 1],
        ['b', 1, 1],
      ],
    },
    {
      name: 'one cluster takes min and max whole',
      policy: 'DynamicWeighted',
      min: 3,
      max: 9,
      clusters: [facts('only', 2)],
      want: [['only', 3, 9]],
    },
    {
      name: 'all weights equal: 10 over 4 gives 3/3/2/2, leftovers by name',
      policy: 'StaticWeighted',
      min: 4,
      max: 10,
      clusters: [facts('d', 5, 2), facts('c', 5, 2), facts('b', 5, 2), facts('a', 5, 2)],
      want: [
        ['a', 1, 3],
        ['b', 1, 3],
        ['c', 1, 2],
        ['d', 1, 2],
      ],
    },
    {
      name: 'DynamicWeighted, a cluster with no capacity gets no member HPA',
      policy: 'DynamicWeighted',
      min: 2,
      max: 6,
      clusters: [facts('a', 0), facts('b', 3), facts('c', 3)],
      want: [
        ['b', 1, 3],
        ['c', 1, 3],
      ],
    },
    {
      name: 'DynamicWeighted, no cluster has capacity: equal split',
      policy: 'DynamicWeighted',
      min: 2,
      max: 4,
      clusters: [facts('a', 0), facts('b', 0)],
      want: [
        ['a', 1, 2],
        ['b', 1, 2],
      ],
    },
    {
      name: 'Aggregated, a cluster with no capacity is not used while others have room',
      policy: 'Aggregated',
      min: 2,
      max: 5,
      clusters: [facts('a', 0), facts('b', 3), facts('c', 9)],
      want: [['c', 2, 5]],
    },
    {
      name: 'Aggregated, ties in availability go by name',
      policy: 'Aggregated',
      min: 1,
      max: 4,
      clusters: [facts('b', 2), facts('a', 2)],
      want: [
        ['a', 1, 2],
        ['b', 1, 2],
      ],
    },
    {
      name: 'Prioritized, the higher value is preferred and an unnamed cluster comes last',
      policy: 'Prioritized',
      min: 2,
      max: 6,
      clusters: [facts('low', 10, 0, 1), facts('none', 10), facts('high', 3, 0, 7)],
      want: [
        ['high', 2, 3],
        ['low', 1, 3],
      ],
    },
    {
      name: 'Prioritized, the most preferred cluster has no capacity: it still takes what nobody has room for',
      policy: 'Prioritized',
      min: 1,
      max: 5,
      clusters: [facts('first', 0, 0, 9), facts('second', 2, 0, 1)],
      want: [
        ['first', 1, 3],
        ['second', 1, 2],
      ],
    },
    {
      name: 'StaticWeighted, a cluster no preference weighs is left out',
      policy: 'StaticWeighted',
      min: 1,
      max: 4,
      clusters: [facts('a', 5, 1), facts('b', 5, 0)],
      want: [['a', 1, 4]],
    },
    {
      name: 'Duplicated copies min and max to each cluster',
      policy: 'Duplicated',
      min: 2,
      max: 3,
      clusters: [facts('b', 0), facts('a', 0)],
      want: [
        ['a', 2, 3],
        ['b', 2, 3],
      ],
    },
    { name: 'no candidate clusters: no member HPA', policy: 'StaticWeighted', min: 1, max: 3, clusters: [], want: [] },
  ])('$name', ({ policy, min, max, clusters, want }) => {
    const got = assignMinMax(policy, { minReplicas: min, maxReplicas: max }, clusters);
    expect(got.map((a) => [a.cluster, a.minReplicas, a.maxReplicas])).toEqual(want);
  });

  it('keeps the sum of maxima at the FederatedHPA max and every min within its max', () => {
    const clusters = [facts('a', 7, 5, 1), facts('b', 1, 3, 2), facts('c', 4, 1, 3), facts('d', 0, 2, 4)];
    for (const policy of ['StaticWeighted', 'DynamicWeighted', 'Aggregated', 'Prioritized'] as const) {
      for (let max = 1; max <= 30; max++) {
        for (const min of [1, Math.ceil(max / 2), max]) {
          const got = assignMinMax(policy, { minReplicas: min, maxReplicas: max }, clusters);
          expect(got.reduce((s, a) => s + a.maxReplicas, 0)).toBe(max);
          for (const a of got) {
            expect(a.minReplicas).toBeGreaterThanOrEqual(1);
            expect(a.minReplicas).toBeLessThanOrEqual(a.maxReplicas);
          }
        }
      }
    }
  });

  it('rejects max below min and an unknown policy with the field path', () => {
    expect(() => assignMinMax('Duplicated', { minReplicas: 5, maxReplicas: 2 }, [])).toThrow(AssignmentInputError);
    expect(() => assignMinMax('Random' as AssignmentPolicy, { minReplicas: 1, maxReplicas: 2 }, [])).toThrow(
      /spec\.federatedHPAAssignment\.federatedHPAAssignmentType/,
    );
  });
});
