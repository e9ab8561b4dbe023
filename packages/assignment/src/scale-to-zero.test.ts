import { describe, expect, it } from 'vitest';
import type { RunningMember } from './optimise-max.js';
import { scaleToZero, type ScaleToZeroInput } from './scale-to-zero.js';
import type { AssignmentPolicy } from './types.js';

const member = (name: string, currentReplicas: number, facts: Partial<RunningMember> = {}): RunningMember => ({
  name,
  available: 5,
  staticWeight: 1,
  priority: 1,
  minReplicas: 1,
  maxReplicas: 5,
  currentReplicas,
  ...facts,
});

const idle = (
  policy: AssignmentPolicy,
  members: RunningMember[],
  extra: Partial<ScaleToZeroInput> = {},
): ScaleToZeroInput => ({
  policy,
  scalingToZero: true,
  federationMin: 1,
  utilisation: 20,
  targetUtilisation: 50,
  members,
  ...extra,
});

describe("scaleToZero: Karmada's FederatedHPA proposal, scaling to zero", () => {
  it.each<{ policy: AssignmentPolicy; members: RunningMember[]; zero: string }>([
    {
      policy: 'StaticWeighted',
      members: [
        member('a', 1, { staticWeight: 3 }),
        member('b', 1, { staticWeight: 1 }),
        member('c', 1, { staticWeight: 2 }),
      ],
      zero: 'b',
    },
    {
      policy: 'DynamicWeighted',
      members: [member('a', 1, { available: 2 }), member('b', 1, { available: 9 }), member('c', 1, { available: 4 })],
      zero: 'a',
    },
    {
      policy: 'Aggregated',
      members: [
        member('a', 3, { minReplicas: 3 }),
        member('b', 2, { minReplicas: 2 }),
        member('c', 4, { minReplicas: 4 }),
      ],
      zero: 'b',
    },
    {
      policy: 'Prioritized',
      members: [member('a', 1, { priority: 1 }), member('b', 1, { priority: 3 }), member('c', 1, { priority: 2 })],
      zero: 'a',
    },
    { policy: 'StaticWeighted', members: [member('c', 1), member('b', 1), member('a', 1)], zero: 'a' },
  ])('$policy sends $zero to zero (one cluster a cycle)', ({ policy, members, zero }) => {
    expect(scaleToZero(idle(policy, members))).toEqual({
      action: 'ScaleToZero',
      scaled: [{ name: zero, replicas: 0 }],
    });
  });

  it.each<{ name: string; input: ScaleToZeroInput }>([
    {
      name: 'scalingToZero is off',
      input: idle('StaticWeighted', [member('a', 1), member('b', 1)], { scalingToZero: false }),
    },
    { name: 'the policy is Duplicated', input: idle('Duplicated', [member('a', 1), member('b', 1)]) },
    { name: 'a cluster is above its min', input: idle('StaticWeighted', [member('a', 2), member('b', 1)]) },
    {
      name: 'Σmin does not exceed the FederatedHPA min',
      input: idle('StaticWeighted', [member('a', 1), member('b', 1)], { federationMin: 2 }),
    },
    {
      name: 'utilisation is at target',
      input: idle('StaticWeighted', [member('a', 1), member('b', 1)], { utilisation: 50 }),
    },
    {
      name: 'no cluster min fits in the excess over the FederatedHPA min',
      input: idle('Aggregated', [member('a', 3, { minReplicas: 3 }), member('b', 2, { minReplicas: 2 })], {
        federationMin: 4,
      }),
    },
  ])('does nothing when $name', ({ input }) => {
    expect(scaleToZero(input)).toEqual({ action: 'None' });
  });

  it('ignores clusters already at zero when checking mins', () => {
    const out = scaleToZero(
      idle('StaticWeighted', [
        member('a', 0, { staticWeight: 1 }),
        member('b', 1, { staticWeight: 2 }),
        member('c', 1, { staticWeight: 3 }),
      ]),
    );
    expect(out).toEqual({ action: 'ScaleToZero', scaled: [{ name: 'b', replicas: 0 }] });
  });
});

describe("scaleToZero: Karmada's FederatedHPA proposal, scaling back from zero", () => {
  const busy = { utilisation: 90, targetUtilisation: 50 };
  it.each<AssignmentPolicy>(['StaticWeighted', 'DynamicWeighted', 'Aggregated'])(
    '%s brings every cluster at zero back to its min',
    (policy) => {
      const out = scaleToZero(idle(policy, [member('a', 0, { minReplicas: 2 }), member('b', 3), member('c', 0)], busy));
      expect(out).toEqual({
        action: 'ScaleFromZero',
        scaled: [
          { name: 'a', replicas: 2 },
          { name: 'c', replicas: 1 },
        ],
      });
    },
  );

  it('Prioritized brings back only the most preferred cluster at zero', () => {
    const out = scaleToZero(
      idle(
        'Prioritized',
        [member('a', 0, { priority: 1 }), member('b', 3, { priority: 9 }), member('c', 0, { priority: 5 })],
        busy,
      ),
    );
    expect(out).toEqual({ action: 'ScaleFromZero', scaled: [{ name: 'c', replicas: 1 }] });
  });

  it('does nothing when no cluster is at zero', () => {
    expect(scaleToZero(idle('Aggregated', [member('a', 2), member('b', 3)], busy))).toEqual({ action: 'None' });
  });
});
