import { describe, expect, it } from 'vitest';
import { scaleDownOrder, type ScaleDownMember } from './scale-down-order.js';

const member = (
  name: string,
  priority: number,
  currentReplicas: number,
  maxReplicas: number,
  minReplicas = 1,
): ScaleDownMember => ({ name, priority, currentReplicas, maxReplicas, minReplicas });

describe("scaleDownOrder: Karmada's FederatedHPA proposal, scaling down lowest priority first", () => {
  // The proposal prints cluster 3 with maxReplicas 1 while it runs 4; its final numbers (cluster 1 max 7) only add
  // up with max 4, which is what the cases use.
  it('step 1: cluster 3 (lowest priority) scales down while clusters 1 and 2 are pinned at 4 and 9 (the proposal names clusters 2 and 3)', () => {
    const plan = scaleDownOrder([
      member('cluster-1', 3, 4, 4),
      member('cluster-2', 2, 9, 9),
      member('cluster-3', 1, 4, 4),
    ]);
    expect(plan.scalingDown).toBe('cluster-3');
    expect(plan.pinned).toEqual([
      { name: 'cluster-1', replicas: 4 },
      { name: 'cluster-2', replicas: 9 },
    ]);
    expect(plan.changed).toBe(false);
  });

  it('step 2: cluster 3 at its min 1 gets max 1, cluster 1 gets max 7, and cluster 2 is next to scale down', () => {
    const plan = scaleDownOrder([
      member('cluster-1', 3, 4, 4),
      member('cluster-2', 2, 9, 9),
      member('cluster-3', 1, 1, 4),
    ]);
    expect(plan.assignments).toEqual([
      { cluster: 'cluster-1', minReplicas: 1, maxReplicas: 7 },
      { cluster: 'cluster-2', minReplicas: 1, maxReplicas: 9 },
      { cluster: 'cluster-3', minReplicas: 1, maxReplicas: 1 },
    ]);
    expect(plan.scalingDown).toBe('cluster-2');
    expect(plan.pinned).toEqual([{ name: 'cluster-1', replicas: 4 }]);
    expect(plan.changed).toBe(true);
  });

  it('is idempotent once the freed max has moved', () => {
    const plan = scaleDownOrder([
      member('cluster-1', 3, 4, 7),
      member('cluster-2', 2, 9, 9),
      member('cluster-3', 1, 1, 1),
    ]);
    expect(plan.changed).toBe(false);
    expect(plan.scalingDown).toBe('cluster-2');
  });

  it('pins nothing when every cluster sits at its min, and the most preferred keeps the collected max', () => {
    const plan = scaleDownOrder([member('a', 3, 1, 4), member('b', 2, 1, 3), member('c', 1, 1, 2)]);
    expect(plan.scalingDown).toBeUndefined();
    expect(plan.pinned).toEqual([]);
    expect(plan.assignments.map((a) => a.maxReplicas)).toEqual([7, 1, 1]);
  });

  it('a single cluster scales down on its own', () => {
    expect(scaleDownOrder([member('only', 1, 5, 9)])).toEqual({
      scalingDown: 'only',
      pinned: [],
      assignments: [{ cluster: 'only', minReplicas: 1, maxReplicas: 9 }],
      changed: false,
    });
  });
});
