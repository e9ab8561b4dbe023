import { describe, expect, it } from 'vitest';
import {
  APPLIED_PLACEMENT_ANNOTATION,
  evictionRecheckMs,
  placementChanged,
  remainingTargets,
  replicasChanged,
  scheduleTrigger,
} from './reschedule.js';
import type { Cluster, Placement, ResourceBinding, TargetCluster, Toleration } from './types.js';

const now = new Date('2026-01-01T00:10:00Z');
const notReady = { key: 'cluster.karmada.io/not-ready', effect: 'NoExecute', timeAdded: '2026-01-01T00:09:00Z' };

const cluster = (
  name: string,
  opts: { tainted?: boolean; deleting?: boolean; labels?: Record<string, string> } = {},
): Cluster => ({
  metadata: { name, labels: opts.labels ?? {}, ...(opts.deleting && { deletionTimestamp: '2026-01-01T00:00:00Z' }) },
  spec: opts.tainted ? { taints: [notReady] } : {},
  status: { conditions: [{ type: 'Ready', status: opts.tainted ? 'False' : 'True' }] },
});

const staticWeights: Placement = {
  clusterAffinity: { clusterNames: ['m1', 'm2'] },
  replicaScheduling: {
    replicaSchedulingType: 'Divided',
    replicaDivisionPreference: 'Weighted',
    weightPreference: { staticWeightList: [{ targetCluster: { clusterNames: ['m1', 'm2'] }, weight: 1 }] },
  },
};
const pool: Placement = { ...staticWeights, clusterAffinity: { labelSelector: { matchLabels: { pool: 'a' } } } };
const duplicated: Placement = {
  clusterAffinity: { clusterNames: ['m1', 'm2'] },
  replicaScheduling: { replicaSchedulingType: 'Duplicated' },
};
const groups: Placement = {
  clusterAffinities: [
    { affinityName: 'g1', clusterNames: ['m1'] },
    { affinityName: 'g2', clusterNames: ['m2'] },
  ],
  replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Aggregated' },
};

function binding(
  placement: Placement,
  clusters: TargetCluster[],
  opts: {
    replicas?: number;
    applied?: Placement | string | null;
    observed?: string;
    trigger?: string;
    last?: string;
  } = {},
): ResourceBinding {
  const applied = opts.applied === undefined ? placement : opts.applied;
  return {
    metadata: {
      name: 'web-deployment',
      namespace: 'default',
      generation: 2,
      annotations:
        applied === null
          ? {}
          : { [APPLIED_PLACEMENT_ANNOTATION]: typeof applied === 'string' ? applied : JSON.stringify(applied) },
    },
    spec: {
      resource: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      replicas: opts.replicas ?? 4,
      placement,
      clusters,
      ...(opts.trigger && { rescheduleTriggeredAt: opts.trigger }),
    },
    status: {
      ...(opts.observed && { schedulerObservingAffinityName: opts.observed }),
      ...(opts.last && { lastScheduledTime: opts.last }),
    },
  };
}

describe('placementChanged (Karmada placementChanged)', () => {
  const withTerms = (g1: object, g2: object | undefined): Placement => ({
    clusterAffinities: [{ affinityName: 'g1', ...g1 }, ...(g2 ? [{ affinityName: 'g2', ...g2 }] : [])],
  });
  const base = withTerms({ clusterNames: ['m1'] }, { clusterNames: ['m2'] });
  it.each([
    { name: 'nothing applied yet', placement: base, applied: undefined, observed: 'g1', want: true },
    { name: 'unreadable record', placement: base, applied: '{oops', observed: 'g1', want: false },
    { name: 'equal', placement: base, applied: JSON.stringify(base), observed: 'g1', want: false },
    {
      name: 'equal, keys in another order',
      placement: {
        replicaScheduling: { replicaDivisionPreference: 'Weighted', replicaSchedulingType: 'Divided' },
        ...base,
      },
      applied: JSON.stringify({
        ...base,
        replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Weighted' },
      }),
      observed: 'g1',
      want: false,
    },
    {
      name: 'tolerations added',
      placement: { ...base, clusterTolerations: [{ key: 'k', operator: 'Exists' }] },
      applied: JSON.stringify(base),
      observed: 'g1',
      want: true,
    },
    {
      name: 'replicaScheduling changed',
      placement: { ...base, replicaScheduling: { replicaSchedulingType: 'Duplicated' } },
      applied: JSON.stringify(base),
      observed: 'g1',
      want: true,
    },
    {
      name: 'clusterAffinity changed',
      placement: { clusterAffinity: { clusterNames: ['m2'] } },
      applied: JSON.stringify({ clusterAffinity: { clusterNames: ['m1'] } }),
      observed: undefined,
      want: true,
    },
    {
      name: 'another group edited',
      placement: withTerms({ clusterNames: ['m1'] }, { clusterNames: ['m3'] }),
      applied: JSON.stringify(base),
      observed: 'g1',
      want: false,
    },
    {
      name: 'another group removed',
      placement: withTerms({ clusterNames: ['m1'] }, undefined),
      applied: JSON.stringify(base),
      observed: 'g1',
      want: false,
    },
    {
      name: 'the observed group edited',
      placement: withTerms({ clusterNames: ['m1', 'm3'] }, { clusterNames: ['m2'] }),
      applied: JSON.stringify(base),
      observed: 'g1',
      want: true,
    },
    {
      name: 'the observed group removed',
      placement: withTerms({ clusterNames: ['m1'] }, undefined),
      applied: JSON.stringify(base),
      observed: 'g2',
      want: true,
    },
    {
      name: 'groups changed, none observed yet',
      placement: withTerms({ clusterNames: ['m1'] }, { clusterNames: ['m3'] }),
      applied: JSON.stringify(base),
      observed: undefined,
      want: true,
    },
  ])('$name → $want', ({ placement, applied, observed, want }) => {
    expect(placementChanged(placement, applied, observed)).toBe(want);
  });
});

describe('replicasChanged (Karmada IsBindingReplicasChanged)', () => {
  it.each([
    {
      name: 'Divided, sum matches',
      placement: staticWeights,
      targets: [
        { name: 'm1', replicas: 3 },
        { name: 'm2', replicas: 1 },
      ],
      want: false,
    },
    { name: 'Divided, sum short', placement: staticWeights, targets: [{ name: 'm1', replicas: 2 }], want: true },
    {
      name: 'Duplicated, every entry has all',
      placement: duplicated,
      targets: [
        { name: 'm1', replicas: 4 },
        { name: 'm2', replicas: 4 },
      ],
      want: false,
    },
    {
      name: 'Duplicated, one entry differs',
      placement: duplicated,
      targets: [
        { name: 'm1', replicas: 4 },
        { name: 'm2', replicas: 3 },
      ],
      want: true,
    },
  ])('$name → $want', ({ placement, targets, want }) => {
    expect(replicasChanged(binding(placement, targets).spec, targets)).toBe(want);
  });
});

describe('scheduleTrigger (Karmada doScheduleBinding)', () => {
  const m1m2 = [
    { name: 'm1', replicas: 2 },
    { name: 'm2', replicas: 2 },
  ];
  const tolerate = (seconds?: number): Toleration[] => [
    {
      key: notReady.key,
      operator: 'Exists',
      effect: 'NoExecute',
      ...(seconds !== undefined && { tolerationSeconds: seconds }),
    },
  ];
  it.each([
    {
      name: 'Divided, nothing changed',
      b: binding(staticWeights, m1m2),
      clusters: [cluster('m1'), cluster('m2')],
      want: undefined,
    },
    {
      name: 'Divided, a target stopped matching the affinity',
      b: binding(pool, m1m2),
      clusters: [cluster('m1', { labels: { pool: 'a' } }), cluster('m2')],
      want: undefined,
    },
    {
      name: 'Divided, a new cluster appeared',
      b: binding(staticWeights, m1m2),
      clusters: [cluster('m1'), cluster('m2'), cluster('m3')],
      want: undefined,
    },
    {
      name: 'first schedule',
      b: binding(staticWeights, [], { applied: null }),
      clusters: [cluster('m1')],
      want: 'PlacementChanged',
    },
    {
      name: 'scaled',
      b: binding(staticWeights, m1m2, { replicas: 6 }),
      clusters: [cluster('m1'), cluster('m2')],
      want: 'ReplicasChanged',
    },
    {
      name: 'a target tainted NoExecute, untolerated',
      b: binding(staticWeights, m1m2),
      clusters: [cluster('m1'), cluster('m2', { tainted: true })],
      want: 'ClusterEvicted',
    },
    {
      name: 'a target tainted, tolerated forever',
      b: binding({ ...staticWeights, clusterTolerations: tolerate() }, m1m2),
      clusters: [cluster('m1'), cluster('m2', { tainted: true })],
      want: undefined,
    },
    {
      name: 'a target tainted, toleration seconds left',
      b: binding({ ...staticWeights, clusterTolerations: tolerate(120) }, m1m2),
      clusters: [cluster('m1'), cluster('m2', { tainted: true })],
      want: undefined,
    },
    {
      name: 'a target tainted, toleration seconds run out',
      b: binding({ ...staticWeights, clusterTolerations: tolerate(60) }, m1m2),
      clusters: [cluster('m1'), cluster('m2', { tainted: true })],
      want: 'ClusterEvicted',
    },
    {
      name: 'a target being deleted',
      b: binding(staticWeights, m1m2),
      clusters: [cluster('m1'), cluster('m2', { deleting: true })],
      want: 'ClusterEvicted',
    },
    { name: 'a target gone', b: binding(staticWeights, m1m2), clusters: [cluster('m1')], want: 'ClusterEvicted' },
    {
      name: 'reschedule requested',
      b: binding(staticWeights, m1m2, { trigger: '2026-01-01T00:05:00Z', last: '2026-01-01T00:00:00Z' }),
      clusters: [cluster('m1'), cluster('m2')],
      want: 'RescheduleRequested',
    },
    {
      name: 'reschedule already done',
      b: binding(staticWeights, m1m2, { trigger: '2026-01-01T00:05:00Z', last: '2026-01-01T00:06:00Z' }),
      clusters: [cluster('m1'), cluster('m2')],
      want: undefined,
    },
    {
      name: 'Duplicated is always scheduled',
      b: binding(duplicated, [
        { name: 'm1', replicas: 4 },
        { name: 'm2', replicas: 4 },
      ]),
      clusters: [cluster('m1'), cluster('m2')],
      want: 'AlwaysScheduled',
    },
    {
      name: 'a non-workload is always scheduled',
      b: binding(staticWeights, [{ name: 'm1', replicas: 0 }], { replicas: 0 }),
      clusters: [cluster('m1')],
      want: 'AlwaysScheduled',
    },
    {
      name: 'another group edited',
      b: binding(groups, [{ name: 'm1', replicas: 4 }], {
        observed: 'g1',
        applied: {
          ...groups,
          clusterAffinities: [groups.clusterAffinities![0]!, { affinityName: 'g2', clusterNames: ['m9'] }],
        },
      }),
      clusters: [cluster('m1'), cluster('m2')],
      want: undefined,
    },
  ])('$name → $want', ({ b, clusters, want }) => {
    expect(scheduleTrigger(b, clusters, now)).toBe(want);
  });

  it('an evicted target no longer counts towards the assignment', () => {
    expect(
      remainingTargets(
        binding(staticWeights, [
          { name: 'm1', replicas: 2 },
          { name: 'm2', replicas: 2 },
        ]),
        [cluster('m1'), cluster('m2', { tainted: true })],
        now,
      ),
    ).toEqual([{ name: 'm1', replicas: 2 }]);
  });
});

describe('evictionRecheckMs', () => {
  const on = (tolerations: Toleration[], targets = [{ name: 'm2', replicas: 4 }]) =>
    binding({ ...staticWeights, clusterTolerations: tolerations }, targets);
  const tainted = [cluster('m1'), cluster('m2', { tainted: true })];
  it.each([
    {
      name: 'seconds left: when they run out',
      tol: [{ key: notReady.key, operator: 'Exists', tolerationSeconds: 300 }],
      want: 240_000,
    },
    {
      name: 'the shortest toleration decides',
      tol: [
        { key: notReady.key, operator: 'Exists', tolerationSeconds: 300 },
        { operator: 'Exists', tolerationSeconds: 90 },
      ],
      want: 30_000,
    },
    { name: 'tolerated forever: never', tol: [{ key: notReady.key, operator: 'Exists' }], want: undefined },
    { name: 'untolerated: evicted already, nothing pending', tol: [], want: undefined },
    {
      name: 'seconds run out already: nothing pending',
      tol: [{ key: notReady.key, operator: 'Exists', tolerationSeconds: 30 }],
      want: undefined,
    },
  ])('$name', ({ tol, want }) => {
    expect(evictionRecheckMs(on(tol), tainted, now)).toBe(want);
  });
  it('only the clusters the binding is on count', () => {
    expect(
      evictionRecheckMs(
        on([{ operator: 'Exists', tolerationSeconds: 300 }], [{ name: 'm1', replicas: 4 }]),
        tainted,
        now,
      ),
    ).toBeUndefined();
  });
});
