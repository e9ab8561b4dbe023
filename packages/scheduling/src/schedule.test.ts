import { describe, expect, it } from 'vitest';
import { scheduleBinding, scheduleMode, type ScheduleFailure, type ScheduleSuccess } from './schedule.js';
import type { Cluster, Placement, ResourceBinding, ResourceBindingStatus, TargetCluster } from './types.js';

const now = new Date('2024-04-17T15:04:05.678Z');

function cluster(
  name: string,
  pods = 100,
  opts: {
    ready?: boolean;
    taints?: NonNullable<Cluster['spec']>['taints'];
    region?: string;
    labels?: Record<string, string>;
  } = {},
): Cluster {
  return {
    metadata: { name, labels: opts.labels ?? {} },
    spec: { ...(opts.taints && { taints: opts.taints }), ...(opts.region && { region: opts.region }) },
    status: {
      conditions: [{ type: 'Ready', status: opts.ready === false ? 'False' : 'True' }],
      resourceSummary: { allocatable: { pods } },
    },
  };
}

function binding(
  placement: Placement,
  replicas: number,
  extra: {
    clusters?: TargetCluster[];
    status?: ResourceBindingStatus;
    rescheduleTriggeredAt?: string;
    uid?: string;
  } = {},
): ResourceBinding {
  return {
    apiVersion: 'work.karmada.io/v1alpha2',
    kind: 'ResourceBinding',
    metadata: { name: 'nginx-deployment', namespace: 'default' },
    spec: {
      resource: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        namespace: 'default',
        name: 'nginx',
        ...(extra.uid && { uid: extra.uid }),
      },
      replicas,
      placement,
      ...(extra.clusters && { clusters: extra.clusters }),
      ...(extra.rescheduleTriggeredAt && { rescheduleTriggeredAt: extra.rescheduleTriggeredAt }),
    },
    ...(extra.status && { status: extra.status }),
  };
}

const ok = (r: ReturnType<typeof scheduleBinding>): ScheduleSuccess => {
  if (!r.ok) throw new Error(`expected success, got ${r.reason}: ${r.message}`);
  return r;
};
const fail = (r: ReturnType<typeof scheduleBinding>): ScheduleFailure => {
  if (r.ok) throw new Error(`expected failure, got ${JSON.stringify(r.clusters)}`);
  return r;
};

// The multiple scheduling groups proposal's sample: three groups, the first naming a cluster that does not exist.
const seedGroups: Placement = {
  clusterAffinities: [
    { affinityName: 'dc-shanghai', clusterNames: ['unavailable'] },
    { affinityName: 'dc-beijing', clusterNames: ['member1'] },
    { affinityName: 'dc-hongkong', clusterNames: ['member2'] },
  ],
};
const divided = (p: Placement): Placement => ({
  ...p,
  replicaScheduling: {
    replicaSchedulingType: 'Divided',
    replicaDivisionPreference: 'Weighted',
    weightPreference: { dynamicWeight: 'AvailableReplicas' },
  },
});
const notReadyNoExecute = [
  { key: 'cluster.karmada.io/not-ready', effect: 'NoExecute', timeAdded: '2024-04-17T15:00:00Z' },
];

describe('scheduleBinding: ordered affinity groups (the multiple scheduling groups proposal of Karmada)', () => {
  it('skips the unavailable first group and lands on dc-beijing', () => {
    const r = ok(
      scheduleBinding({ binding: binding(seedGroups, 2), clusters: [cluster('member1'), cluster('member2')], now }),
    );
    expect(r.clusters).toEqual([{ name: 'member1', replicas: 2 }]);
    expect(r.affinityName).toBe('dc-beijing');
    expect(r.lastScheduledTime).toBe('2024-04-17T15:04:05Z');
    expect(r.mode).toBe('Steady');
    expect(r.attempts.map((a) => [a.affinityName, a.ok, a.message])).toEqual([
      [
        'dc-shanghai',
        false,
        '0/2 clusters are available: 2 cluster(s) did not match the placement cluster affinity constraint.',
      ],
      ['dc-beijing', true, undefined],
    ]);
    expect(r.filtered).toEqual([
      { cluster: 'member2', reason: 'cluster(s) did not match the placement cluster affinity constraint' },
    ]);
  });

  it('fails over to dc-hongkong when member1 is tainted NoExecute', () => {
    const b = binding(seedGroups, 2, {
      clusters: [{ name: 'member1', replicas: 2 }],
      status: { schedulerObservingAffinityName: 'dc-beijing', lastScheduledTime: '2024-04-17T15:00:00Z' },
    });
    const r = ok(
      scheduleBinding({
        binding: b,
        clusters: [cluster('member1', 100, { taints: notReadyNoExecute }), cluster('member2')],
        now,
      }),
    );
    expect(r.clusters).toEqual([{ name: 'member2', replicas: 2 }]);
    expect(r.affinityName).toBe('dc-hongkong');
    // Resumed at the observed group: the earlier dc-shanghai was not retried.
    expect(r.attempts.map((a) => a.affinityName)).toEqual(['dc-beijing', 'dc-hongkong']);
  });

  it('stays on the observed group after the preferred cluster recovers', () => {
    const b = binding(seedGroups, 2, {
      clusters: [{ name: 'member2', replicas: 2 }],
      status: { schedulerObservingAffinityName: 'dc-hongkong', lastScheduledTime: '2024-04-17T15:00:00Z' },
    });
    const r = ok(scheduleBinding({ binding: b, clusters: [cluster('member1'), cluster('member2')], now }));
    expect(r.clusters).toEqual([{ name: 'member2', replicas: 2 }]);
    expect(r.affinityName).toBe('dc-hongkong');
  });

  it('restarts at the first group in Fresh mode (rescheduleTriggeredAt > lastScheduledTime)', () => {
    const b = binding(seedGroups, 2, {
      clusters: [{ name: 'member2', replicas: 2 }],
      status: { schedulerObservingAffinityName: 'dc-hongkong', lastScheduledTime: '2024-04-17T15:00:05Z' },
      rescheduleTriggeredAt: '2024-04-17T15:04:05Z',
    });
    const r = ok(scheduleBinding({ binding: b, clusters: [cluster('member1'), cluster('member2')], now }));
    expect(r.mode).toBe('Fresh');
    expect(r.affinityName).toBe('dc-beijing');
    expect(r.clusters).toEqual([{ name: 'member1', replicas: 2 }]);
  });

  it('starts at the first group when the observed name is no longer in the list', () => {
    const b = binding(seedGroups, 1, { status: { schedulerObservingAffinityName: 'removed' } });
    expect(
      ok(scheduleBinding({ binding: b, clusters: [cluster('member1'), cluster('member2')], now })).affinityName,
    ).toBe('dc-beijing');
  });

  it('never wraps around: a failing last group does not retry earlier ones, and the previous assignment is kept', () => {
    const b = binding(seedGroups, 2, {
      clusters: [{ name: 'member2', replicas: 2 }],
      status: { schedulerObservingAffinityName: 'dc-hongkong' },
    });
    const r = fail(
      scheduleBinding({
        binding: b,
        clusters: [cluster('member1'), cluster('member2', 100, { taints: notReadyNoExecute })],
        now,
      }),
    );
    expect(r.reason).toBe('NoClusterFit');
    expect(r.keptClusters).toEqual([{ name: 'member2', replicas: 2 }]);
    expect(r.attempts.map((a) => a.affinityName)).toEqual(['dc-hongkong']);
    expect(r.message).toBe(
      'group dc-hongkong: 0/2 clusters are available: 1 cluster(s) did not match the placement cluster affinity constraint, 1 cluster(s) had untolerated taint {cluster.karmada.io/not-ready:NoExecute}.; previous assignment kept (member2:2)',
    );
  });

  it('names every group when all fail and takes the reason from the first error', () => {
    const p = divided({
      clusterAffinities: [
        { affinityName: 'small', clusterNames: ['member1'] },
        { affinityName: 'none', clusterNames: ['ghost'] },
      ],
    });
    const r = fail(scheduleBinding({ binding: binding(p, 10), clusters: [cluster('member1', 3)], now }));
    expect(r.reason).toBe('Unschedulable');
    expect(r.message).toBe(
      'group small: Clusters available replicas 3 are not enough to schedule.; group none: 0/1 clusters are available: 1 cluster(s) did not match the placement cluster affinity constraint.; no previous assignment to keep',
    );
    expect(r.keptClusters).toEqual([]);
  });

  it('moves a Divided workload wholesale to the next group when the current one runs out of room', () => {
    const p = divided({
      clusterAffinities: [
        { affinityName: 'g1', clusterNames: ['a'] },
        { affinityName: 'g2', clusterNames: ['b', 'c'] },
      ],
    });
    const b = binding(p, 8, {
      clusters: [{ name: 'a', replicas: 4 }],
      status: { schedulerObservingAffinityName: 'g1' },
    });
    // a: 2 more fit, so scaling 4→8 needs 4 and g1 fails; in g2 the replicas on a are forgotten.
    const r = ok(scheduleBinding({ binding: b, clusters: [cluster('a', 2), cluster('b', 6), cluster('c', 10)], now }));
    expect(r.affinityName).toBe('g2');
    expect(r.clusters).toEqual([
      { name: 'b', replicas: 3 },
      { name: 'c', replicas: 5 },
    ]);
  });
});

describe('scheduleBinding: single affinity and other paths', () => {
  it('a single clusterAffinity reports no affinityName and keeps the previous assignment on a fit error', () => {
    const b = binding({ clusterAffinity: { clusterNames: ['gone'] } }, 2, {
      clusters: [{ name: 'gone', replicas: 2 }],
    });
    const r = fail(scheduleBinding({ binding: b, clusters: [cluster('member1')], now }));
    expect(r.reason).toBe('NoClusterFit');
    expect(r.attempts[0]!.affinityName).toBeUndefined();
    expect(r.keptClusters).toEqual([{ name: 'gone', replicas: 2 }]);
    expect(r.message).toMatch(/^0\/1 clusters are available: .*; previous assignment kept \(gone:2\)$/);
  });

  it('clusterAffinity wins over clusterAffinities if both slipped past admission', () => {
    const p: Placement = {
      clusterAffinity: { clusterNames: ['member2'] },
      clusterAffinities: [{ affinityName: 'x', clusterNames: ['member1'] }],
    };
    const r = ok(scheduleBinding({ binding: binding(p, 1), clusters: [cluster('member1'), cluster('member2')], now }));
    expect(r.clusters).toEqual([{ name: 'member2', replicas: 1 }]);
    expect(r.affinityName).toBeUndefined();
  });

  it('an unsupported strategy is a SchedulerError', () => {
    const p: Placement = { replicaScheduling: { replicaSchedulingType: 'Sharded' } };
    const r = fail(scheduleBinding({ binding: binding(p, 1), clusters: [cluster('member1')], now }));
    expect(r.reason).toBe('SchedulerError');
    expect(r.message).toContain('unsupported replica scheduling strategy');
  });

  it('divides across three clusters whose capacities differ, estimated from the resource summary', () => {
    const mk = (name: string, cpu: string, memory: string): Cluster => ({
      metadata: { name },
      status: {
        conditions: [{ type: 'Ready', status: 'True' }],
        resourceSummary: { allocatable: { pods: 110, cpu, memory }, allocated: { pods: 10, cpu: '1', memory: '1Gi' } },
      },
    });
    const b = binding(divided({}), 12);
    b.spec.replicaRequirements = { resourceRequest: { cpu: '500m', memory: '512Mi' } };
    // free: a min(6000/500, 7Gi/512Mi)=12, b min(2, 6)=2, c min(14, 8)=8 → 12 over 12:8:2 → 7:4:1
    const r = ok(
      scheduleBinding({ binding: b, clusters: [mk('a', '7', '8Gi'), mk('b', '2', '4Gi'), mk('c', '8', '5Gi')], now }),
    );
    expect(r.clusters).toEqual([
      { name: 'a', replicas: 7 },
      { name: 'b', replicas: 1 },
      { name: 'c', replicas: 4 },
    ]);
  });

  it('honours tolerations for tainted clusters', () => {
    const taints = [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }];
    const clusters = [cluster('plain'), cluster('gpu', 100, { taints })];
    expect(ok(scheduleBinding({ binding: binding({}, 1), clusters, now })).clusters).toEqual([
      { name: 'plain', replicas: 1 },
    ]);
    const tolerant = binding(
      { clusterTolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }] },
      1,
    );
    expect(ok(scheduleBinding({ binding: tolerant, clusters, now })).clusters).toEqual([
      { name: 'gpu', replicas: 1 },
      { name: 'plain', replicas: 1 },
    ]);
  });

  it('a NotReady cluster takes no new replicas', () => {
    const r = ok(
      scheduleBinding({
        binding: binding({}, 1),
        clusters: [cluster('up'), cluster('down', 100, { ready: false })],
        now,
      }),
    );
    expect(r.clusters).toEqual([{ name: 'up', replicas: 1 }]);
    expect(r.filtered).toEqual([{ cluster: 'down', reason: 'cluster(s) were not ready' }]);
  });

  it('spread by cluster caps a Duplicated workload at maxGroups, preferring current clusters', () => {
    const p: Placement = { spreadConstraints: [{ spreadByField: 'cluster', minGroups: 1, maxGroups: 2 }] };
    const b = binding(p, 3, { clusters: [{ name: 'c', replicas: 3 }] });
    const r = ok(scheduleBinding({ binding: b, clusters: [cluster('a', 5), cluster('b', 50), cluster('c', 1)], now }));
    expect(r.clusters.map((t) => t.name)).toEqual(['b', 'c']);
  });

  it('spread by cluster fails when fewer clusters than minGroups pass the filters', () => {
    const p: Placement = { spreadConstraints: [{ spreadByField: 'cluster', minGroups: 3, maxGroups: 3 }] };
    const r = fail(scheduleBinding({ binding: binding(p, 3), clusters: [cluster('a'), cluster('b')], now }));
    expect(r.reason).toBe('SchedulerError');
    expect(r.message).toContain('the number of feasible clusters is less than spreadConstraint.MinGroups');
  });

  it('spread by cluster with dynamic weights picks enough capacity within maxGroups', () => {
    const p = divided({ spreadConstraints: [{ spreadByField: 'cluster', minGroups: 1, maxGroups: 1 }] });
    const r = ok(
      scheduleBinding({ binding: binding(p, 5), clusters: [cluster('a', 4), cluster('b', 6), cluster('c', 9)], now }),
    );
    // Single-cluster paths that fit are b(6) and c(9); equal scores, so the larger value wins.
    expect(r.clusters).toEqual([{ name: 'c', replicas: 5 }]);
  });

  it('spread by region takes the best cluster of each chosen region', () => {
    const p: Placement = { spreadConstraints: [{ spreadByField: 'region', minGroups: 2, maxGroups: 2 }] };
    const clusters = [
      cluster('e1', 10, { region: 'eu' }),
      cluster('e2', 20, { region: 'eu' }),
      cluster('u1', 5, { region: 'us' }),
    ];
    const r = ok(scheduleBinding({ binding: binding(p, 2), clusters, now }));
    expect(r.clusters.map((t) => t.name).sort()).toEqual(['e2', 'u1']);
  });

  it('spread by region fails with too few regions', () => {
    const p: Placement = { spreadConstraints: [{ spreadByField: 'region', minGroups: 2, maxGroups: 2 }] };
    const r = fail(scheduleBinding({ binding: binding(p, 2), clusters: [cluster('e1', 10, { region: 'eu' })], now }));
    expect(r.message).toContain('the number of feasible region is less than spreadConstraint.MinGroups');
  });
});

describe('scheduleMode', () => {
  it.each([
    { trigger: undefined, last: '2024-01-01T00:00:00Z', want: 'Steady' },
    { trigger: '2024-01-01T00:00:01Z', last: undefined, want: 'Steady' },
    { trigger: '2024-01-01T00:00:00Z', last: '2024-01-01T00:00:00Z', want: 'Steady' },
    { trigger: '2024-01-01T00:00:00Z', last: '2024-01-01T00:00:01Z', want: 'Steady' },
    { trigger: '2024-01-01T00:00:02Z', last: '2024-01-01T00:00:01Z', want: 'Fresh' },
  ])('trigger $trigger, last $last → $want', ({ trigger, last, want }) => {
    expect(
      scheduleMode(
        binding({}, 1, {
          ...(trigger && { rescheduleTriggeredAt: trigger }),
          ...(last && { status: { lastScheduledTime: last } }),
        }),
      ),
    ).toBe(want);
  });
});

describe('a workload at 0 replicas (non-workload bypass)', () => {
  const placement = divided({ clusterAffinity: { clusterNames: ['m1', 'm2'] } });
  const clusters = [cluster('m1'), cluster('m2')];

  it('without replica requirements, is placed on every candidate with 0 replicas', () => {
    expect(ok(scheduleBinding({ binding: binding(placement, 0), clusters, now })).clusters).toEqual([
      { name: 'm1', replicas: 0 },
      { name: 'm2', replicas: 0 },
    ]);
  });

  it('with only a node claim (a nodeSelector, no requests), is divided like any workload: no cluster gets a 0 entry', () => {
    const b = binding(placement, 0);
    b.spec.replicaRequirements = { nodeClaim: { nodeSelector: { disk: 'ssd' } } };
    expect(ok(scheduleBinding({ binding: b, clusters, now })).clusters).toEqual([]);
  });
});
