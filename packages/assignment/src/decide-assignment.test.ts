import type { FederatedHPASpec } from '@flotilla/api';
import type { Cluster } from '@flotilla/scheduling';
import { describe, expect, it } from 'vitest';
import { assignMinMax } from './assign.js';
import { decideAssignment, type AssignmentInput } from './decide-assignment.js';
import { memberWithRoom } from './testdata/fleet.js';
import type { BindingCluster, MemberAssignment } from './types.js';

const target = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop' };
const names = (...clusterNames: string[]) => ({ clusterNames });

function spec(extra: Partial<FederatedHPASpec>): FederatedHPASpec {
  return { scaleTargetRef: target, minReplicas: 1, maxReplicas: 10, ...extra };
}

const fleet = (rooms: Record<string, number>): Cluster[] =>
  Object.entries(rooms).map(([name, free]) => memberWithRoom(name, free));
const hpa = (cluster: string, minReplicas: number, maxReplicas: number): MemberAssignment => ({
  cluster,
  minReplicas,
  maxReplicas,
});
const bound = (name: string, replicas: number): BindingCluster => ({ name, replicas });

const staticWeighted = (scalingToZero: boolean): FederatedHPASpec =>
  spec({
    minReplicas: 2,
    maxReplicas: 10,
    clusterAffinity: names('member1', 'member2', 'member3'),
    scalingToZero,
    federatedHPAAssignment: {
      federatedHPAAssignmentType: 'StaticWeighted',
      clusterAutoscalingPreference: [
        { targetCluster: names('member1'), staticWeight: 1 },
        { targetCluster: names('member2'), staticWeight: 2 },
        { targetCluster: names('member3'), staticWeight: 3 },
      ],
    },
  });

const prioritized = (scalingToZero: boolean): FederatedHPASpec =>
  spec({
    minReplicas: 8,
    maxReplicas: 24,
    clusterAffinity: names('member1', 'member2', 'member3'),
    scalingToZero,
    federatedHPAAssignment: {
      federatedHPAAssignmentType: 'Prioritized',
      clusterAutoscalingPreference: [
        { targetCluster: names('member1'), priority: 2 },
        { targetCluster: names('member2'), priority: 1 },
      ],
    },
  });

const byPolicy = (type: 'DynamicWeighted' | 'Aggregated', scalingToZero = false): FederatedHPASpec =>
  spec({
    minReplicas: 8,
    maxReplicas: 24,
    clusterAffinity: names('member1', 'member2', 'member3'),
    scalingToZero,
    federatedHPAAssignment: { federatedHPAAssignmentType: type },
  });

interface Example {
  name: string;
  input: AssignmentInput;
  assignments: MemberAssignment[];
  bindingClusters: BindingCluster[];
}

describe("decideAssignment: the worked examples of Karmada's FederatedHPA proposal", () => {
  it.each<Example>([
    {
      name: 'Duplicated: every affinity cluster gets 3/10, member4 leaves the binding, member5 joins at min; the binding is clamped into 3..10 (member1 3 and member3 10, printed as 1 and 20)',
      input: {
        spec: spec({
          minReplicas: 3,
          maxReplicas: 10,
          clusterAffinity: names('member1', 'member2', 'member3', 'member5'),
        }),
        clusters: fleet({ member1: 50, member2: 50, member3: 50, member4: 50, member5: 50 }),
        bindingClusters: [bound('member1', 1), bound('member2', 4), bound('member3', 20), bound('member4', 5)],
      },
      assignments: [hpa('member1', 3, 10), hpa('member2', 3, 10), hpa('member3', 3, 10), hpa('member5', 3, 10)],
      bindingClusters: [bound('member1', 3), bound('member2', 4), bound('member3', 10), bound('member5', 3)],
    },
    {
      name: 'StaticWeighted 1:2:3 with scalingToZero: max by largest remainder 2/3/5 (not the printed 1/4/5), mins raised to 1, member3 stays at 0',
      input: {
        spec: staticWeighted(true),
        clusters: fleet({ member1: 50, member2: 50, member3: 50 }),
        bindingClusters: [bound('member1', 1), bound('member2', 4)],
      },
      assignments: [hpa('member1', 1, 2), hpa('member2', 1, 3), hpa('member3', 1, 5)],
      bindingClusters: [bound('member1', 1), bound('member2', 3), bound('member3', 0)],
    },
    {
      name: 'StaticWeighted 1:2:3 without scalingToZero: member3 raised to 1 (member2 clamped to its max 3, not kept at 4 as printed)',
      input: {
        spec: staticWeighted(false),
        clusters: fleet({ member1: 50, member2: 50, member3: 50 }),
        bindingClusters: [bound('member1', 1), bound('member2', 4)],
      },
      assignments: [hpa('member1', 1, 2), hpa('member2', 1, 3), hpa('member3', 1, 5)],
      bindingClusters: [bound('member1', 1), bound('member2', 3), bound('member3', 1)],
    },
    {
      name: 'DynamicWeighted by availability 1:5:2: 1/3, 5/15, 2/6',
      input: {
        spec: byPolicy('DynamicWeighted'),
        clusters: fleet({ member1: 1, member2: 5, member3: 2 }),
        bindingClusters: [],
      },
      assignments: [hpa('member1', 1, 3), hpa('member2', 5, 15), hpa('member3', 2, 6)],
      bindingClusters: [bound('member1', 1), bound('member2', 5), bound('member3', 2)],
    },
    {
      name: 'DynamicWeighted with scalingToZero: the same split, new member workloads start at 0',
      input: {
        spec: byPolicy('DynamicWeighted', true),
        clusters: fleet({ member1: 1, member2: 5, member3: 2 }),
        bindingClusters: [],
      },
      assignments: [hpa('member1', 1, 3), hpa('member2', 5, 15), hpa('member3', 2, 6)],
      bindingClusters: [bound('member1', 0), bound('member2', 0), bound('member3', 0)],
    },
    {
      name: 'Aggregated over availability 8/2/2: member1 8/20 (8 + the 12 left over, not the printed 18), member2 and member3 1/2',
      input: {
        spec: byPolicy('Aggregated'),
        clusters: fleet({ member1: 8, member2: 2, member3: 2 }),
        bindingClusters: [],
      },
      assignments: [hpa('member1', 8, 20), hpa('member2', 1, 2), hpa('member3', 1, 2)],
      bindingClusters: [bound('member1', 8), bound('member2', 1), bound('member3', 1)],
    },
    {
      name: 'Prioritized (priority 2 preferred) with scalingToZero: member1 8/23, member2 1/1 at 0; member3, with no room, gets no member HPA',
      input: {
        spec: prioritized(true),
        clusters: fleet({ member1: 20, member2: 1, member3: 0 }),
        bindingClusters: [bound('member1', 15)],
      },
      assignments: [hpa('member1', 8, 23), hpa('member2', 1, 1)],
      bindingClusters: [bound('member1', 15), bound('member2', 0)],
    },
    {
      name: 'Prioritized without scalingToZero: member2 starts at 1',
      input: {
        spec: prioritized(false),
        clusters: fleet({ member1: 20, member2: 1, member3: 0 }),
        bindingClusters: [bound('member1', 15)],
      },
      assignments: [hpa('member1', 8, 23), hpa('member2', 1, 1)],
      bindingClusters: [bound('member1', 15), bound('member2', 1)],
    },
  ])('$name', ({ input, assignments, bindingClusters }) => {
    const d = decideAssignment(input);
    expect(d.assignments).toEqual(assignments);
    expect(d.bindingClusters).toEqual(bindingClusters);
    expect(d.reason).toBe('Initial');
    expect(d.changed).toBe(true);
  });

  it('Prioritized when member3 has not joined the fleet: the same 8/23 and 1/1', () => {
    const d = decideAssignment({
      spec: prioritized(false),
      clusters: fleet({ member1: 20, member2: 1 }),
      bindingClusters: [bound('member1', 15)],
    });
    expect(d.assignments).toEqual([hpa('member1', 8, 23), hpa('member2', 1, 1)]);
  });

  it("Karmada's merged 2022 FederatedHPA proposal: min 2 / max 10 by weights 4:1 gives 1/8 and 1/2", () => {
    const d = decideAssignment({
      spec: spec({
        minReplicas: 2,
        maxReplicas: 10,
        clusterAffinity: names('a', 'b'),
        federatedHPAAssignment: {
          federatedHPAAssignmentType: 'StaticWeighted',
          clusterAutoscalingPreference: [
            { targetCluster: names('a'), staticWeight: 4 },
            { targetCluster: names('b'), staticWeight: 1 },
          ],
        },
      }),
      clusters: fleet({ a: 9, b: 9 }),
      bindingClusters: [],
    });
    expect(d.assignments).toEqual([hpa('a', 1, 8), hpa('b', 1, 2)]);
  });
});

describe('decideAssignment: candidates, failover and re-assignment', () => {
  it('without clusterAffinity the binding clusters are the candidates', () => {
    const d = decideAssignment({
      spec: spec({ minReplicas: 2, maxReplicas: 6 }),
      clusters: fleet({ a: 5, b: 5, c: 5 }),
      bindingClusters: [bound('a', 3), bound('c', 9)],
    });
    expect(d.assignments).toEqual([hpa('a', 2, 6), hpa('c', 2, 6)]);
    expect(d.bindingClusters).toEqual([bound('a', 3), bound('c', 6)]);
  });

  it('fails a NotReady cluster over: its share goes to the others by the same weights (StaticWeighted 1:2 -> 3/7)', () => {
    const clusters = [
      memberWithRoom('member1', 50),
      memberWithRoom('member2', 50),
      memberWithRoom('member3', 50, { ready: false }),
    ];
    const previous = [hpa('member1', 1, 2), hpa('member2', 1, 3), hpa('member3', 1, 5)];
    const d = decideAssignment({
      spec: staticWeighted(false),
      clusters,
      bindingClusters: [bound('member1', 2), bound('member2', 3), bound('member3', 5)],
      previous,
    });
    expect(d.assignments).toEqual([hpa('member1', 1, 3), hpa('member2', 1, 7)]);
    expect(d.bindingClusters).toEqual([bound('member1', 2), bound('member2', 3)]);
    expect(d.failedOver).toEqual(['member3']);
    expect(d.reason).toBe('Failover');
    expect(d.changed).toBe(true);
  });

  it('a re-assignment that changes nothing writes nothing', () => {
    const input = {
      spec: staticWeighted(false),
      clusters: fleet({ member1: 50, member2: 50, member3: 50 }),
      bindingClusters: [bound('member1', 1), bound('member2', 3), bound('member3', 1)],
    };
    const first = decideAssignment(input);
    const again = decideAssignment({ ...input, previous: [...first.assignments].reverse() });
    expect(again.changed).toBe(false);
    expect(again.reason).toBe('Unchanged');
  });

  it('an unchanged assignment with a binding out of bounds is still a change (the binding is clamped)', () => {
    const input = {
      spec: staticWeighted(false),
      clusters: fleet({ member1: 50, member2: 50, member3: 50 }),
      bindingClusters: [bound('member1', 1), bound('member2', 4), bound('member3', 1)],
    };
    const d = decideAssignment({
      ...input,
      previous: [hpa('member1', 1, 2), hpa('member2', 1, 3), hpa('member3', 1, 5)],
    });
    expect(d.changed).toBe(true);
    expect(d.reason).toBe('Reassigned');
  });

  it('a FederatedHPA change (max 10 -> 16) re-splits and says Reassigned', () => {
    const s = { ...staticWeighted(false), maxReplicas: 16 };
    const d = decideAssignment({
      spec: s,
      clusters: fleet({ member1: 50, member2: 50, member3: 50 }),
      bindingClusters: [],
      previous: [hpa('member1', 1, 2), hpa('member2', 1, 3), hpa('member3', 1, 5)],
    });
    expect(d.assignments).toEqual([hpa('member1', 1, 3), hpa('member2', 1, 5), hpa('member3', 1, 8)]);
    expect(d.reason).toBe('Reassigned');
  });

  it('uses the estimator for availability: pod requests against allocatable − allocated − allocating, own replicas not added back', () => {
    const sized = (name: string, cpuFree: string): Cluster => ({
      metadata: { name },
      status: {
        conditions: [{ type: 'Ready', status: 'True' }],
        resourceSummary: {
          allocatable: { pods: '100', cpu: '10' },
          allocated: { cpu: cpuFree },
          allocating: { cpu: '1' },
        },
      },
    });
    // a: 10 − 4 − 1 = 5 cores = 10 pods of 500m; b: 10 − 8 − 1 = 1 core = 2 pods. Weights 10:2 over max 12.
    const d = decideAssignment({
      spec: spec({
        minReplicas: 1,
        maxReplicas: 12,
        federatedHPAAssignment: { federatedHPAAssignmentType: 'DynamicWeighted' },
      }),
      clusters: [sized('a', '4'), sized('b', '8')],
      bindingClusters: [bound('a', 6), bound('b', 6)],
      podRequests: { cpu: '500m' },
    });
    expect(d.assignments).toEqual([hpa('a', 1, 10), hpa('b', 1, 2)]);
    expect(d.bindingClusters).toEqual([bound('a', 6), bound('b', 2)]);
  });

  it('selects candidates by label through clusterAffinity', () => {
    const clusters = [
      memberWithRoom('a', 5, { labels: { env: 'prod' } }),
      memberWithRoom('b', 5, { labels: { env: 'dev' } }),
    ];
    const d = decideAssignment({
      spec: spec({ clusterAffinity: { labelSelector: { matchLabels: { env: 'prod' } } } }),
      clusters,
      bindingClusters: [bound('b', 2)],
    });
    expect(d.assignments).toEqual([hpa('a', 1, 10)]);
    expect(d.bindingClusters).toEqual([bound('a', 1)]);
  });

  it('max below the number of clusters: only max clusters get a member HPA, the rest get none and no replicas', () => {
    const d = decideAssignment({
      spec: spec({
        minReplicas: 1,
        maxReplicas: 2,
        federatedHPAAssignment: { federatedHPAAssignmentType: 'DynamicWeighted' },
      }),
      clusters: fleet({ a: 5, b: 5, c: 5 }),
      bindingClusters: [bound('a', 1), bound('b', 1), bound('c', 1)],
    });
    expect(d.assignments).toEqual([hpa('a', 1, 1), hpa('b', 1, 1)]);
    expect(d.bindingClusters).toEqual([bound('a', 1), bound('b', 1)]);
  });
});

describe('decideAssignment: Prioritized estimates only the clusters its max reaches', () => {
  it('gives the same split as estimating every cluster', () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let run = 0; run < 200; run++) {
      const rooms = Object.fromEntries(['a', 'b', 'c', 'd', 'e'].map((n) => [n, Math.floor(rand() * 12)]));
      const priorities = Object.keys(rooms).map((n) => ({ targetCluster: names(n), priority: Math.floor(rand() * 4) }));
      const minReplicas = 1 + Math.floor(rand() * 6);
      const maxReplicas = minReplicas + Math.floor(rand() * 30);
      const d = decideAssignment({
        spec: spec({
          minReplicas,
          maxReplicas,
          federatedHPAAssignment: {
            federatedHPAAssignmentType: 'Prioritized',
            clusterAutoscalingPreference: priorities,
          },
        }),
        clusters: fleet(rooms),
        bindingClusters: Object.keys(rooms).map((n) => bound(n, 1)),
      });
      const full = assignMinMax(
        'Prioritized',
        { minReplicas, maxReplicas },
        Object.entries(rooms).map(([name, available], i) => ({
          name,
          available,
          staticWeight: 0,
          priority: priorities[i]!.priority,
        })),
      );
      expect(d.assignments).toEqual(full);
    }
  });
});
