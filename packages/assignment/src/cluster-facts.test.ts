import type { FederatedHPASpec } from '@flotilla/api';
import { describe, expect, it } from 'vitest';
import { clusterFacts } from './cluster-facts.js';
import { memberWithRoom } from './testdata/fleet.js';

const clusters = [memberWithRoom('a', 30), memberWithRoom('b', 4), memberWithRoom('c', 7)];
const prioritized: FederatedHPASpec = {
  scaleTargetRef: { kind: 'Deployment', name: 'shop' },
  minReplicas: 2,
  maxReplicas: 20,
  federatedHPAAssignment: {
    federatedHPAAssignmentType: 'Prioritized',
    clusterAutoscalingPreference: [
      { targetCluster: { clusterNames: ['a'] }, priority: 5 },
      { targetCluster: { clusterNames: ['b', 'c'] }, priority: 1 },
      { targetCluster: { clusterNames: ['c'] }, priority: 3, staticWeight: 2 },
    ],
  },
};

describe('clusterFacts', () => {
  it('works out availability and the largest matching weight and priority for every cluster', () => {
    expect(clusterFacts(prioritized, clusters, undefined)).toEqual([
      { name: 'a', available: 30, staticWeight: 0, priority: 5 },
      { name: 'b', available: 4, staticWeight: 0, priority: 1 },
      { name: 'c', available: 7, staticWeight: 2, priority: 3 },
    ]);
  });

  it('for a Prioritized assignment, estimates only until the max is placed', () => {
    expect(clusterFacts(prioritized, clusters, undefined, { forAssignment: true }).map((f) => f.available)).toEqual([
      30, 0, 0,
    ]);
  });

  it('for a Duplicated assignment, neither estimates nor matches preferences', () => {
    const duplicated = {
      ...prioritized,
      federatedHPAAssignment: { federatedHPAAssignmentType: 'Duplicated' as const },
    };
    expect(clusterFacts(duplicated, clusters, undefined, { forAssignment: true })).toEqual([
      { name: 'a', available: 0, staticWeight: 0, priority: undefined },
      { name: 'b', available: 0, staticWeight: 0, priority: undefined },
      { name: 'c', available: 0, staticWeight: 0, priority: undefined },
    ]);
  });
});
