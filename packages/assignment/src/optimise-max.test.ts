import { describe, expect, it } from 'vitest';
import { optimiseMax, type RunningMember } from './optimise-max.js';

const member = (
  name: string,
  currentReplicas: number,
  maxReplicas: number,
  facts: Partial<RunningMember> = {},
): RunningMember => ({
  name,
  available: 0,
  staticWeight: 0,
  priority: undefined,
  minReplicas: 1,
  currentReplicas,
  maxReplicas,
  ...facts,
});

describe("optimiseMax: Karmada's FederatedHPA proposal, the periodic max optimisation", () => {
  it('weights 2:1:1, current 6/6/6, max 7/8/7: the pool of 4 is re-split to 8/7/7', () => {
    const out = optimiseMax('StaticWeighted', [
      member('cluster-1', 6, 7, { staticWeight: 2 }),
      member('cluster-2', 6, 8, { staticWeight: 1 }),
      member('cluster-3', 6, 7, { staticWeight: 1 }),
    ]);
    expect(out.pool).toBe(4);
    expect(out.assignments.map((a) => a.maxReplicas)).toEqual([8, 7, 7]);
    expect(out.changed).toBe(true);
  });

  it('writes nothing when the re-split lands where the maxima already are', () => {
    const out = optimiseMax('StaticWeighted', [
      member('a', 6, 8, { staticWeight: 2 }),
      member('b', 6, 7, { staticWeight: 1 }),
      member('c', 6, 7, { staticWeight: 1 }),
    ]);
    expect(out.changed).toBe(false);
  });

  it('DynamicWeighted re-splits by current availability', () => {
    const out = optimiseMax('DynamicWeighted', [
      member('a', 4, 10, { available: 0 }),
      member('b', 4, 5, { available: 3 }),
    ]);
    expect(out.assignments.map((a) => a.maxReplicas)).toEqual([4, 11]);
  });

  it('Prioritized fills the most preferred cluster up to its availability first, the rest in order', () => {
    const out = optimiseMax('Prioritized', [
      member('a', 5, 6, { priority: 2, available: 2 }),
      member('b', 5, 9, { priority: 1, available: 10 }),
    ]);
    expect(out.pool).toBe(5);
    expect(out.assignments.map((a) => a.maxReplicas)).toEqual([7, 8]);
  });

  it('Aggregated gives the pool of 7 to the cluster with most room first (b 4, a 1), the 2 left to b', () => {
    const out = optimiseMax('Aggregated', [member('a', 3, 5, { available: 1 }), member('b', 3, 8, { available: 4 })]);
    expect(out.assignments.map((a) => a.maxReplicas)).toEqual([4, 9]);
  });

  it('a cluster scaled to zero keeps max >= min out of the pool', () => {
    const out = optimiseMax('StaticWeighted', [
      member('a', 0, 3, { staticWeight: 1 }),
      member('b', 4, 5, { staticWeight: 9 }),
    ]);
    expect(out.assignments).toEqual([
      { cluster: 'a', minReplicas: 1, maxReplicas: 1 },
      { cluster: 'b', minReplicas: 1, maxReplicas: 7 },
    ]);
  });

  it('leaves Duplicated alone: every member already has the whole max', () => {
    const out = optimiseMax('Duplicated', [member('a', 2, 10), member('b', 9, 10)]);
    expect(out.changed).toBe(false);
    expect(out.assignments.map((a) => a.maxReplicas)).toEqual([10, 10]);
  });
});
