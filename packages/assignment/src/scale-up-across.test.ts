import { describe, expect, it } from 'vitest';
import { scaleUpAcross, type PrioritizedMember } from './scale-up-across.js';

const member = (
  name: string,
  priority: number | undefined,
  minReplicas: number,
  maxReplicas: number,
  readyReplicas: number,
  currentReplicas = readyReplicas,
): PrioritizedMember => ({
  name,
  priority,
  minReplicas,
  maxReplicas,
  readyReplicas,
  currentReplicas,
});

describe("scaleUpAcross: Karmada's FederatedHPA proposal, scaling up by priority", () => {
  it.each([
    { name: 'member2 running 1 (scalingToZero false)', member2Replicas: 1, scaled: [] },
    {
      name: 'member2 at 0 (scalingToZero true) is raised to 1',
      member2Replicas: 0,
      scaled: [{ name: 'member2', replicas: 1 }],
    },
  ])(
    'starved member1 (10 ready, 6 pending) drops to max 10 and member2 goes from max 1 to 14: $name',
    ({ member2Replicas, scaled }) => {
      const plan = scaleUpAcross(
        [member('member1', 2, 8, 23, 10, 16), member('member2', 1, 1, 1, member2Replicas)],
        new Set(['member1']),
      );
      expect(plan.assignments).toEqual([
        { cluster: 'member1', minReplicas: 8, maxReplicas: 10 },
        { cluster: 'member2', minReplicas: 1, maxReplicas: 14 },
      ]);
      expect(plan.scaled).toEqual(scaled);
      expect(plan.moves).toEqual([{ from: 'member1', to: 'member2', replicas: 13 }]);
      expect(plan.changed).toBe(true);
    },
  );

  it('keeps min when fewer pods are ready than min', () => {
    const plan = scaleUpAcross([member('a', 2, 8, 23, 5), member('b', 1, 1, 1, 1)], new Set(['a']));
    expect(plan.assignments).toEqual([
      { cluster: 'a', minReplicas: 8, maxReplicas: 8 },
      { cluster: 'b', minReplicas: 1, maxReplicas: 16 },
    ]);
  });

  it('skips a starved successor and gives the freed max to the next preferred cluster that is not starved', () => {
    const plan = scaleUpAcross(
      [member('a', 3, 1, 10, 4), member('b', 2, 1, 5, 5), member('c', 1, 0, 0, 0)],
      new Set(['a', 'b']),
    );
    expect(plan.assignments).toEqual([
      { cluster: 'a', minReplicas: 1, maxReplicas: 4 },
      { cluster: 'b', minReplicas: 1, maxReplicas: 5 },
      { cluster: 'c', minReplicas: 1, maxReplicas: 6 },
    ]);
    expect(plan.scaled).toEqual([{ name: 'c', replicas: 1 }]);
  });

  it('changes nothing when no less preferred cluster has room, or when the starved cluster already uses its max', () => {
    expect(scaleUpAcross([member('a', 2, 1, 10, 4), member('b', 1, 1, 5, 2)], new Set(['b'])).changed).toBe(false);
    expect(scaleUpAcross([member('a', 2, 1, 10, 10), member('b', 1, 1, 5, 2)], new Set(['a'])).changed).toBe(false);
    expect(scaleUpAcross([member('a', 2, 1, 10, 4), member('b', 1, 1, 5, 2)], new Set()).changed).toBe(false);
  });

  it('preserves the total max', () => {
    const members = [
      member('a', 5, 2, 12, 3),
      member('b', 4, 1, 6, 6),
      member('c', 3, 1, 4, 1),
      member('d', undefined, 0, 0, 0),
    ];
    const plan = scaleUpAcross(members, new Set(['a', 'b']));
    expect(plan.assignments.reduce((s, a) => s + a.maxReplicas, 0)).toBe(22);
  });
});
