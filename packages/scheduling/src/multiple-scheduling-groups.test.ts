// Karmada's multiple scheduling groups proposal: facts not covered in schedule.test.ts / what-if.test.ts:
// a cluster that belongs to several groups, the proposal's `foo` policy with its ResourceBinding status example, and the
// cluster-scoped kinds (ClusterPropagationPolicy → ClusterResourceBinding) with clusterAffinities.
import { describe, expect, it } from 'vitest';
import { decideBinding, statusAfter, type ScheduledDecision } from './decide-binding.js';
import { buildBinding, findMatchingPolicy } from './detection.js';
import { scheduleBinding, type ScheduleResult } from './schedule.js';
import type {
  Cluster,
  Placement,
  PropagationPolicy,
  ResourceBinding,
  ResourceBindingStatus,
  ResourceTemplate,
  TargetCluster,
} from './types.js';
import { whatIfSchedule } from './what-if.js';

const now = new Date('2024-04-17T15:04:05Z');
const evicting = [{ key: 'cluster.karmada.io/not-ready', effect: 'NoExecute', timeAdded: '2024-04-17T15:00:00Z' }];

/** A Ready cluster with room for `pods` more pods (the only resource the bindings here request). */
function cluster(
  name: string,
  pods = 100,
  opts: { ready?: boolean; taints?: typeof evicting; labels?: Record<string, string> } = {},
): Cluster {
  return {
    apiVersion: 'cluster.karmada.io/v1alpha1',
    kind: 'Cluster',
    metadata: { name, labels: opts.labels ?? {} },
    spec: { ...(opts.taints && { taints: opts.taints }) },
    status: {
      conditions: [{ type: 'Ready', status: opts.ready === false ? 'False' : 'True' }],
      resourceSummary: { allocatable: { pods } },
    },
  };
}

/** The scheduler's decision on a binding that records no applied placement yet: always a schedule. */
function decide(b: ResourceBinding, clusters: readonly Cluster[]): ScheduledDecision {
  const d = decideBinding(b, clusters, now);
  if (d.kind !== 'Scheduled') throw new Error('expected the binding to be scheduled');
  return d;
}

function rb(
  placement: Placement,
  replicas: number,
  prev: { clusters?: TargetCluster[]; status?: ResourceBindingStatus; rescheduleTriggeredAt?: string } = {},
): ResourceBinding {
  return {
    apiVersion: 'work.karmada.io/v1alpha2',
    kind: 'ResourceBinding',
    metadata: { name: 'app-deployment', namespace: 'default' },
    spec: {
      resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'app' },
      replicas,
      placement,
      ...(prev.clusters && { clusters: prev.clusters }),
      ...(prev.rescheduleTriggeredAt && { rescheduleTriggeredAt: prev.rescheduleTriggeredAt }),
    },
    ...(prev.status && { status: prev.status }),
  };
}

const dynamic = {
  replicaSchedulingType: 'Divided',
  replicaDivisionPreference: 'Weighted',
  weightPreference: { dynamicWeight: 'AvailableReplicas' },
} as const;
const duplicated = { replicaSchedulingType: 'Duplicated' } as const;
const outcome = (r: ScheduleResult) =>
  r.ok
    ? {
        group: r.affinityName,
        clusters: r.clusters,
        tried: r.attempts.map((a) => [a.affinityName, a.ok ? 'ok' : a.message]),
      }
    : { failed: r.reason, kept: r.keptClusters, tried: r.attempts.map((a) => [a.affinityName, a.message]) };

describe('the multiple scheduling groups proposal: a cluster may belong to several groups', () => {
  // member2 is in both groups: chosen by name in g1, by label in g2.
  const groups = (replicaScheduling: Placement['replicaScheduling']): Placement => ({
    clusterAffinities: [
      { affinityName: 'g1', clusterNames: ['member1', 'member2'] },
      { affinityName: 'g2', labelSelector: { matchLabels: { tier: 'backup' } } },
    ],
    replicaScheduling,
  });
  const backup = { labels: { tier: 'backup' } };

  it.each<{ case: string; binding: ResourceBinding; clusters: Cluster[]; want: ReturnType<typeof outcome> }>([
    {
      case: 'first schedule, Duplicated: the first group takes the shared cluster like any other',
      binding: rb(groups(duplicated), 2),
      clusters: [cluster('member1'), cluster('member2', 100, backup), cluster('member3', 100, backup)],
      want: {
        group: 'g1',
        clusters: [
          { name: 'member1', replicas: 2 },
          { name: 'member2', replicas: 2 },
        ],
        tried: [['g1', 'ok']],
      },
    },
    {
      case: 'a group that fails does not exclude its clusters from the next group: member2 is selected through g2',
      // g1 has room for 1 + 2 < 5 (Unschedulable); g2 has 2 + 4: Webster 5 over free 2:4 → 2:3.
      binding: rb(groups(dynamic), 5),
      clusters: [cluster('member1', 1), cluster('member2', 2, backup), cluster('member3', 4, backup)],
      want: {
        group: 'g2',
        clusters: [
          { name: 'member2', replicas: 2 },
          { name: 'member3', replicas: 3 },
        ],
        tried: [
          ['g1', 'Clusters available replicas 3 are not enough to schedule.'],
          ['g2', 'ok'],
        ],
      },
    },
    {
      case: 'Steady failover into a group sharing a cluster: the replicas on member2 stay, only the evicted ones are placed anew',
      // member1 evicts (NoExecute): g1 keeps member2:3 and needs 3 more, member2 has room for 2 → Unschedulable.
      // g2: member2:3 is still a candidate's assignment (kept), 3 more by Webster over free 2:10 → +1 / +2, merged.
      binding: rb(groups(dynamic), 6, {
        clusters: [
          { name: 'member1', replicas: 3 },
          { name: 'member2', replicas: 3 },
        ],
        status: { schedulerObservingAffinityName: 'g1', lastScheduledTime: '2024-04-17T15:00:00Z' },
      }),
      clusters: [
        cluster('member1', 100, { taints: evicting }),
        cluster('member2', 2, backup),
        cluster('member3', 10, backup),
      ],
      want: {
        group: 'g2',
        clusters: [
          { name: 'member2', replicas: 4 },
          { name: 'member3', replicas: 2 },
        ],
        tried: [
          ['g1', 'Clusters available replicas 2 are not enough to schedule.'],
          ['g2', 'ok'],
        ],
      },
    },
    {
      case: 'the same failover in Fresh mode recomputes everything from the first group: member2 keeps no more than its share',
      // g1: member2 alone, free + own = 2 + 3 < 6. g2: 6 over (free + own) 5:10 → 2:4.
      binding: rb(groups(dynamic), 6, {
        clusters: [
          { name: 'member1', replicas: 3 },
          { name: 'member2', replicas: 3 },
        ],
        status: { schedulerObservingAffinityName: 'g1', lastScheduledTime: '2024-04-17T15:00:00Z' },
        rescheduleTriggeredAt: '2024-04-17T15:01:00Z',
      }),
      clusters: [
        cluster('member1', 100, { taints: evicting }),
        cluster('member2', 2, backup),
        cluster('member3', 10, backup),
      ],
      want: {
        group: 'g2',
        clusters: [
          { name: 'member2', replicas: 2 },
          { name: 'member3', replicas: 4 },
        ],
        tried: [
          ['g1', 'Clusters available replicas 5 are not enough to schedule.'],
          ['g2', 'ok'],
        ],
      },
    },
    {
      case: 'Steady resumes at the observed g2 even though g1 fits again, and the shared cluster keeps its replicas',
      binding: rb(groups(dynamic), 6, {
        clusters: [
          { name: 'member2', replicas: 2 },
          { name: 'member3', replicas: 4 },
        ],
        status: { schedulerObservingAffinityName: 'g2' },
      }),
      clusters: [cluster('member1'), cluster('member2', 100, backup), cluster('member3', 100, backup)],
      want: {
        group: 'g2',
        clusters: [
          { name: 'member2', replicas: 2 },
          { name: 'member3', replicas: 4 },
        ],
        tried: [['g2', 'ok']],
      },
    },
    {
      case: 'Steady scale-down in the observed group shrinks by previous replicas, the shared cluster included',
      // Weights = previous replicas 2:4 → Webster 3 → 1:2.
      binding: rb(groups(dynamic), 3, {
        clusters: [
          { name: 'member2', replicas: 2 },
          { name: 'member3', replicas: 4 },
        ],
        status: { schedulerObservingAffinityName: 'g2' },
      }),
      clusters: [cluster('member1'), cluster('member2', 100, backup), cluster('member3', 100, backup)],
      want: {
        group: 'g2',
        clusters: [
          { name: 'member2', replicas: 1 },
          { name: 'member3', replicas: 2 },
        ],
        tried: [['g2', 'ok']],
      },
    },
  ])('$case', ({ binding, clusters, want }) => {
    expect(outcome(scheduleBinding({ binding, clusters, now }))).toEqual(want);
  });
});

describe("the multiple scheduling groups proposal: the `foo` policy (a single clusterAffinity) and the proposal's ResourceBinding status", () => {
  const foo: ResourceTemplate = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'foo', namespace: 'default', uid: 'f00' },
    spec: { replicas: 2 },
  };
  const fooPolicy: PropagationPolicy = {
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'PropagationPolicy',
    metadata: { name: 'foo', namespace: 'default' },
    spec: {
      resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'foo' }],
      placement: { clusterAffinity: { clusterNames: ['member1', 'member2'] } },
    },
  };
  // The proposal's status example, as written (its key `SchedulerObservedAffinityName` is not the API's JSON name,
  // `schedulerObservingAffinityName`; Karmada's decoder would drop it, so it is data nobody reads).
  const seedStatus = {
    aggregatedStatus: [
      {
        applied: true,
        clusterName: 'member1',
        health: 'Healthy',
        status: { availableReplicas: 2, readyReplicas: 2, replicas: 2, updatedReplicas: 2 },
      },
    ],
    conditions: [
      {
        lastTransitionTime: '2023-02-04T09:38:20Z',
        message: 'All works have been successfully applied',
        reason: 'FullyAppliedSuccess',
        status: 'True',
        type: 'FullyApplied',
      },
      {
        lastTransitionTime: '2023-02-04T09:38:20Z',
        message: 'Binding has been scheduled',
        reason: 'BindingScheduled',
        status: 'True',
        type: 'Scheduled',
      },
    ],
    schedulerObservedGeneration: 2,
    SchedulerObservedAffinityName: 'ds-hongkong',
  } as ResourceBindingStatus;
  const members = [cluster('member1'), cluster('member2'), cluster('member3')];

  it('detection: foo is selected by name and its binding carries the single clusterAffinity', () => {
    const policy = findMatchingPolicy(foo, [fooPolicy]);
    expect(policy?.metadata.name).toBe('foo');
    const b = buildBinding(foo, policy!);
    expect([b.kind, b.metadata.name, b.spec.replicas, b.spec.placement]).toEqual([
      'ResourceBinding',
      'foo-deployment',
      2,
      { clusterAffinity: { clusterNames: ['member1', 'member2'] } },
    ]);
  });

  it.each<{ case: string; status: ResourceBindingStatus }>([
    { case: 'as written', status: seedStatus },
    // With the API's own key the group name is read, and still plays no part: a single clusterAffinity has no groups.
    {
      case: 'with the observed group under its API name',
      status: { ...seedStatus, schedulerObservingAffinityName: 'ds-hongkong' },
    },
  ])(
    'the decision on that status ($case): member1 and member2 each get every replica (Duplicated), no group',
    ({ status }) => {
      const b = { ...buildBinding(foo, fooPolicy), status };
      const d = decide(b, members);
      const r = d.result;
      expect(outcome(r)).toEqual({
        group: undefined,
        clusters: [
          { name: 'member1', replicas: 2 },
          { name: 'member2', replicas: 2 },
        ],
        tried: [[undefined, 'ok']],
      });
      expect(r.ok && r.filtered).toEqual([
        { cluster: 'member3', reason: 'cluster(s) did not match the placement cluster affinity constraint' },
      ]);

      const next = statusAfter(d, status, 3, now);
      // No group: no observed name is written, and one that was there is cleared.
      expect(next.schedulerObservingAffinityName).toBeUndefined();
      expect(next.lastScheduledTime).toBe('2024-04-17T15:04:05Z');
      // Scheduled stays True, so its transition time stands; the reason becomes today's Karmada reason.
      expect(next.conditions).toEqual([
        seedStatus.conditions![0],
        {
          type: 'Scheduled',
          status: 'True',
          reason: 'Success',
          message: 'Binding has been scheduled successfully.',
          lastTransitionTime: '2023-02-04T09:38:20Z',
        },
      ]);
      // What the scheduler does not own is left as it was; the observed generation is the one it scheduled.
      expect(next).toMatchObject({
        aggregatedStatus: (seedStatus as Record<string, unknown>).aggregatedStatus,
        schedulerObservedGeneration: 3,
      });
    },
  );

  it('the proposal\'s observed name under the three-group sample: "ds-hongkong" is no group there, so the loop starts at the first', () => {
    const nginx: Placement = {
      clusterAffinities: [
        { affinityName: 'dc-shanghai', clusterNames: ['unavailable'] },
        { affinityName: 'dc-beijing', clusterNames: ['member1'] },
        { affinityName: 'dc-hongkong', clusterNames: ['member2'] },
      ],
    };
    const b = rb(nginx, 2, {
      clusters: [{ name: 'member1', replicas: 2 }],
      status: { ...seedStatus, schedulerObservingAffinityName: 'ds-hongkong' },
    });
    const d = decide(b, members);
    const r = d.result;
    expect(outcome(r)).toMatchObject({ group: 'dc-beijing', clusters: [{ name: 'member1', replicas: 2 }] });
    expect(r.attempts.map((a) => a.affinityName)).toEqual(['dc-shanghai', 'dc-beijing']);
    expect(statusAfter(d, b.status, 1, now).schedulerObservingAffinityName).toBe('dc-beijing');
  });
});

describe('the multiple scheduling groups proposal: ClusterPropagationPolicy / ClusterResourceBinding with clusterAffinities', () => {
  const groups: Placement['clusterAffinities'] = [
    { affinityName: 'primary', clusterNames: ['member1'] },
    { affinityName: 'backup', clusterNames: ['member2', 'member3'] },
  ];
  const cpp = (
    selectors: PropagationPolicy['spec']['resourceSelectors'],
    replicaScheduling?: Placement['replicaScheduling'],
  ): PropagationPolicy => ({
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'ClusterPropagationPolicy',
    metadata: { name: 'global' },
    spec: {
      resourceSelectors: selectors,
      placement: { clusterAffinities: groups, ...(replicaScheduling && { replicaScheduling }) },
    },
  });
  const role: ResourceTemplate = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'viewer', uid: 'r1' },
  };
  // A cluster-scoped workload kind: it has replicas and a pod template, and no namespace.
  const worker: ResourceTemplate = {
    apiVersion: 'example.io/v1',
    kind: 'GlobalWorker',
    metadata: { name: 'crawler', uid: 'w1' },
    spec: {
      replicas: 4,
      template: { spec: { containers: [{ name: 'c', resources: { requests: { cpu: '500m' } } }] } },
    },
  };
  const withCpu = (c: Cluster, cpu: string): Cluster => ({
    ...c,
    status: { ...c.status, resourceSummary: { allocatable: { pods: 100, cpu } } },
  });

  it('detection: a cluster-scoped template gets a ClusterResourceBinding with the groups, annotated with the CPP', () => {
    const policy = cpp([{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' }]);
    expect(findMatchingPolicy(role, [policy])).toBe(policy);
    const b = buildBinding(role, policy);
    expect(b).toEqual({
      apiVersion: 'work.karmada.io/v1alpha2',
      kind: 'ClusterResourceBinding',
      metadata: { name: 'viewer-clusterrole', annotations: { 'clusterpropagationpolicy.karmada.io/name': 'global' } },
      spec: {
        resource: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'viewer', uid: 'r1' },
        placement: { clusterAffinities: groups },
      },
    });
  });

  it('decision: a non-workload ClusterResourceBinding falls through to the backup group and goes to each of its clusters with 0 replicas', () => {
    const b = buildBinding(role, cpp([{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' }]));
    const d = decide(b, [cluster('member1', 100, { ready: false }), cluster('member2'), cluster('member3')]);
    const r = d.result;
    expect(outcome(r)).toEqual({
      group: 'backup',
      clusters: [
        { name: 'member2', replicas: 0 },
        { name: 'member3', replicas: 0 },
      ],
      tried: [
        [
          'primary',
          '0/3 clusters are available: 2 cluster(s) did not match the placement cluster affinity constraint, 1 cluster(s) were not ready.',
        ],
        ['backup', 'ok'],
      ],
    });
    expect(statusAfter(d, undefined, 1, now).schedulerObservingAffinityName).toBe('backup');
  });

  it('decision: a cluster-scoped workload divides by capacity in the first group that fits, and resumes there', () => {
    const policy = cpp([{ apiVersion: 'example.io/v1', kind: 'GlobalWorker' }], dynamic);
    const b = buildBinding(worker, policy);
    expect([b.kind, b.metadata.namespace, b.spec.replicas, b.spec.replicaRequirements]).toEqual([
      'ClusterResourceBinding',
      undefined,
      4,
      { resourceRequest: { cpu: '500m' } },
    ]);
    // primary: 1 cpu = 2 replicas < 4. backup: 4 over 2:6 (1 and 3 cpu) → 1:3.
    const clusters = [
      withCpu(cluster('member1'), '1'),
      withCpu(cluster('member2'), '1'),
      withCpu(cluster('member3'), '3'),
    ];
    const d = decide(b, clusters);
    const r = d.result;
    expect(outcome(r)).toEqual({
      group: 'backup',
      clusters: [
        { name: 'member2', replicas: 1 },
        { name: 'member3', replicas: 3 },
      ],
      tried: [
        ['primary', 'Clusters available replicas 2 are not enough to schedule.'],
        ['backup', 'ok'],
      ],
    });
    // Later, with primary roomy again, the binding stays in backup (Steady resumes at the observed group).
    const placed: ResourceBinding = {
      ...b,
      spec: { ...b.spec, clusters: r.ok ? r.clusters : [] },
      status: statusAfter(d, undefined, 2, now),
    };
    const again = scheduleBinding({
      binding: placed,
      clusters: [withCpu(cluster('member1'), '16'), ...clusters.slice(1)],
      now,
    });
    expect(outcome(again)).toEqual({
      group: 'backup',
      clusters: [
        { name: 'member2', replicas: 1 },
        { name: 'member3', replicas: 3 },
      ],
      tried: [['backup', 'ok']],
    });
  });

  it('a namespaced Deployment under a CPP with clusterAffinities gets a namespaced ResourceBinding with the groups', () => {
    const dep: ResourceTemplate = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'prod' },
      spec: { replicas: 1 },
    };
    const b = buildBinding(dep, cpp([{ apiVersion: 'apps/v1', kind: 'Deployment' }]));
    expect([b.kind, b.metadata.namespace, b.metadata.annotations, b.spec.placement?.clusterAffinities]).toEqual([
      'ResourceBinding',
      'prod',
      { 'clusterpropagationpolicy.karmada.io/name': 'global' },
      groups,
    ]);
    const r = scheduleBinding({ binding: b, clusters: [cluster('member1'), cluster('member2')], now });
    expect(outcome(r)).toEqual({
      group: 'primary',
      clusters: [{ name: 'member1', replicas: 1 }],
      tried: [['primary', 'ok']],
    });
  });

  it('what-if, end to end: an existing ClusterResourceBinding resumes its observed group', () => {
    const policy = cpp([{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' }]);
    const existing: ResourceBinding = {
      ...buildBinding(role, policy),
      spec: {
        ...buildBinding(role, policy).spec,
        clusters: [
          { name: 'member2', replicas: 0 },
          { name: 'member3', replicas: 0 },
        ],
      },
      status: { schedulerObservingAffinityName: 'backup', lastScheduledTime: '2024-04-17T15:00:00Z' },
    };
    const out = whatIfSchedule(
      [cluster('member1'), cluster('member2'), cluster('member3'), role, policy, existing],
      now,
    );
    expect(
      out.map((b) => [b.kind, b.metadata.name, b.spec.clusters, b.status?.schedulerObservingAffinityName]),
    ).toEqual([
      [
        'ClusterResourceBinding',
        'viewer-clusterrole',
        [
          { name: 'member2', replicas: 0 },
          { name: 'member3', replicas: 0 },
        ],
        'backup',
      ],
    ]);
  });
});
