import { describe, expect, it } from 'vitest';
import { assignmentsEqual, bindingClustersEqual, diffAssignments } from './assignment-diff.js';

const hpa = (cluster: string, minReplicas: number, maxReplicas: number) => ({ cluster, minReplicas, maxReplicas });

describe('diffAssignments', () => {
  it('names the added, removed and updated member HPAs', () => {
    expect(
      diffAssignments(
        [hpa('a', 1, 2), hpa('b', 1, 3), hpa('c', 1, 5)],
        [hpa('d', 1, 1), hpa('b', 1, 4), hpa('a', 1, 2)],
      ),
    ).toEqual({
      added: [hpa('d', 1, 1)],
      removed: [hpa('c', 1, 5)],
      updated: [hpa('b', 1, 4)],
    });
  });

  it('treats lists as sets by cluster', () => {
    expect(assignmentsEqual([hpa('a', 1, 2), hpa('b', 1, 3)], [hpa('b', 1, 3), hpa('a', 1, 2)])).toBe(true);
    expect(assignmentsEqual([hpa('a', 1, 2)], [hpa('a', 2, 2)])).toBe(false);
    expect(assignmentsEqual([hpa('a', 1, 2)], [hpa('a', 1, 2), hpa('b', 1, 1)])).toBe(false);
  });

  it('compares binding clusters with an absent replicas as 0', () => {
    expect(
      bindingClustersEqual(
        [{ name: 'a' }, { name: 'b', replicas: 2 }],
        [
          { name: 'b', replicas: 2 },
          { name: 'a', replicas: 0 },
        ],
      ),
    ).toBe(true);
    expect(bindingClustersEqual([{ name: 'a', replicas: 1 }], [{ name: 'b', replicas: 1 }])).toBe(false);
  });
});
