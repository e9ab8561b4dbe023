import { describe, expect, it } from 'vitest';
import { clusterMatchesAffinity } from './cluster-affinity.js';
import { filterClusters, FilterReason } from './filters.js';
import { findEvictingTaint, findUntoleratedTaint } from './taints.js';
import type { Cluster, ClusterAffinity, Placement, ResourceBindingSpec, Taint } from './types.js';

const ready = [{ type: 'Ready', status: 'True' }];
const mk = (name: string, extra: Partial<Cluster['spec']> = {}, labels: Record<string, string> = {}): Cluster => ({
  metadata: { name, labels },
  spec: extra,
  status: { conditions: ready },
});

const a = mk('a', { provider: 'aws', region: 'us-east', zones: ['us-east-1a'] }, { env: 'prod', tier: 'gold' });
const b = mk('b', { provider: 'gcp', region: 'eu-west', zone: 'eu-west-1b' }, { env: 'dev' });
const c = mk('c', {}, {});

describe('clusterMatchesAffinity', () => {
  const cases: { name: string; affinity: ClusterAffinity | undefined; want: string[] }[] = [
    { name: 'no affinity', affinity: undefined, want: ['a', 'b', 'c'] },
    { name: 'empty affinity', affinity: {}, want: ['a', 'b', 'c'] },
    { name: 'clusterNames', affinity: { clusterNames: ['a', 'c'] }, want: ['a', 'c'] },
    { name: 'exclude wins over names', affinity: { clusterNames: ['a', 'b'], exclude: ['a'] }, want: ['b'] },
    { name: 'matchLabels', affinity: { labelSelector: { matchLabels: { env: 'prod' } } }, want: ['a'] },
    {
      name: 'In',
      affinity: { labelSelector: { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'dev'] }] } },
      want: ['a', 'b'],
    },
    {
      name: 'NotIn matches unlabeled',
      affinity: { labelSelector: { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] } },
      want: ['b', 'c'],
    },
    {
      name: 'Exists',
      affinity: { labelSelector: { matchExpressions: [{ key: 'tier', operator: 'Exists' }] } },
      want: ['a'],
    },
    {
      name: 'DoesNotExist',
      affinity: { labelSelector: { matchExpressions: [{ key: 'env', operator: 'DoesNotExist' }] } },
      want: ['c'],
    },
    {
      name: 'unknown operator matches nothing',
      affinity: { labelSelector: { matchExpressions: [{ key: 'env', operator: 'Gt', values: ['1'] }] } },
      want: [],
    },
    {
      name: 'provider In',
      affinity: { fieldSelector: { matchExpressions: [{ key: 'provider', operator: 'In', values: ['aws'] }] } },
      want: ['a'],
    },
    {
      name: 'region NotIn',
      affinity: { fieldSelector: { matchExpressions: [{ key: 'region', operator: 'NotIn', values: ['us-east'] }] } },
      want: ['b', 'c'],
    },
    {
      name: 'zone In (zones and legacy zone)',
      affinity: {
        fieldSelector: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['us-east-1a', 'eu-west-1b'] }] },
      },
      want: ['a', 'b'],
    },
    {
      name: 'zone NotIn',
      affinity: { fieldSelector: { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['us-east-1a'] }] } },
      want: ['b', 'c'],
    },
    {
      name: 'unknown field matches nothing',
      affinity: { fieldSelector: { matchExpressions: [{ key: 'name', operator: 'In', values: ['a'] }] } },
      want: [],
    },
    {
      name: 'all parts together',
      affinity: {
        labelSelector: { matchLabels: { env: 'prod' } },
        fieldSelector: { matchExpressions: [{ key: 'provider', operator: 'In', values: ['aws'] }] },
        clusterNames: ['a', 'b'],
      },
      want: ['a'],
    },
  ];
  it.each(cases)('$name', ({ affinity, want }) => {
    expect([a, b, c].filter((x) => clusterMatchesAffinity(x, affinity)).map((x) => x.metadata.name)).toEqual(want);
  });
});

describe('taints and tolerations', () => {
  const t = (key: string, effect: string, value?: string, timeAdded?: string): Taint => ({
    key,
    effect,
    ...(value && { value }),
    ...(timeAdded && { timeAdded }),
  });
  it.each([
    { name: 'NoSchedule untolerated', taints: [t('k', 'NoSchedule', 'v')], tol: [], want: 'k' },
    { name: 'NoExecute untolerated', taints: [t('k', 'NoExecute')], tol: [], want: 'k' },
    { name: 'PreferNoSchedule ignored', taints: [t('k', 'PreferNoSchedule')], tol: [], want: undefined },
    {
      name: 'Equal with value',
      taints: [t('k', 'NoSchedule', 'v')],
      tol: [{ key: 'k', operator: 'Equal', value: 'v', effect: 'NoSchedule' }],
      want: undefined,
    },
    {
      name: 'Equal with wrong value',
      taints: [t('k', 'NoSchedule', 'v')],
      tol: [{ key: 'k', operator: 'Equal', value: 'w' }],
      want: 'k',
    },
    {
      name: 'Exists on key, any effect',
      taints: [t('k', 'NoExecute', 'v')],
      tol: [{ key: 'k', operator: 'Exists' }],
      want: undefined,
    },
    {
      name: 'wrong effect',
      taints: [t('k', 'NoExecute')],
      tol: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }],
      want: 'k',
    },
    {
      name: 'empty key with Exists tolerates all',
      taints: [t('x', 'NoSchedule'), t('y', 'NoExecute')],
      tol: [{ operator: 'Exists' }],
      want: undefined,
    },
    {
      name: 'second taint untolerated',
      taints: [t('x', 'NoSchedule'), t('y', 'NoSchedule')],
      tol: [{ key: 'x', operator: 'Exists' }],
      want: 'y',
    },
  ])('$name', ({ taints, tol, want }) => {
    expect(findUntoleratedTaint(taints, tol)?.key).toBe(want);
  });

  const now = new Date('2024-01-01T00:10:00Z');
  it.each([
    { name: 'untolerated NoExecute evicts', tol: [], want: true },
    { name: 'tolerated forever', tol: [{ key: 'down', operator: 'Exists' }], want: false },
    {
      name: 'seconds not yet elapsed',
      tol: [{ key: 'down', operator: 'Exists', tolerationSeconds: 900 }],
      want: false,
    },
    { name: 'seconds elapsed', tol: [{ key: 'down', operator: 'Exists', tolerationSeconds: 300 }], want: true },
    {
      name: 'shortest matching toleration wins',
      tol: [
        { key: 'down', operator: 'Exists' },
        { operator: 'Exists', tolerationSeconds: 60 },
      ],
      want: true,
    },
    {
      name: 'zero seconds evicts at once',
      tol: [{ key: 'down', operator: 'Exists', tolerationSeconds: 0 }],
      want: true,
    },
  ])('NoExecute eviction: $name', ({ tol, want }) => {
    expect(findEvictingTaint([t('down', 'NoExecute', undefined, '2024-01-01T00:00:00Z')], tol, now) !== undefined).toBe(
      want,
    );
  });

  it('does not evict for NoSchedule taints', () => {
    expect(findEvictingTaint([t('k', 'NoSchedule')], [], now)).toBeUndefined();
  });
});

describe('filterClusters', () => {
  const now = new Date('2024-01-01T00:10:00Z');
  const spec = (placement: Placement, clusters?: { name: string; replicas: number }[]): ResourceBindingSpec => ({
    resource: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'nginx', namespace: 'default' },
    replicas: 2,
    placement,
    ...(clusters && { clusters }),
  });
  const tainted = { ...mk('tainted'), spec: { taints: [{ key: 'maint', effect: 'NoSchedule' }] } };
  const down = { ...mk('down'), status: { conditions: [{ type: 'Ready', status: 'False' }] } };
  const noStatus: Cluster = { metadata: { name: 'nostatus' } };
  const deleting: Cluster = {
    ...mk('deleting'),
    metadata: { name: 'deleting', deletionTimestamp: '2024-01-01T00:00:00Z' },
  };
  const noApi: Cluster = {
    ...mk('noapi'),
    status: {
      conditions: ready,
      apiEnablements: [{ groupVersion: 'v1', resources: [{ name: 'configmaps', kind: 'ConfigMap' }] }],
    },
  };
  const withApi: Cluster = {
    ...mk('withapi'),
    status: {
      conditions: ready,
      apiEnablements: [{ groupVersion: 'apps/v1', resources: [{ name: 'deployments', kind: 'Deployment' }] }],
    },
  };
  const evicting: Cluster = {
    ...mk('evicting'),
    spec: { taints: [{ key: 'cluster.karmada.io/not-ready', effect: 'NoExecute', timeAdded: '2024-01-01T00:00:00Z' }] },
  };

  it('gives every rejected cluster its reason', () => {
    const r = filterClusters({
      clusters: [a, tainted, down, noStatus, deleting, noApi, withApi],
      spec: spec({}),
      affinity: { exclude: ['withapi'] },
      now,
    });
    expect(r.feasible.map((x) => x.metadata.name)).toEqual(['a']);
    expect(r.filtered).toEqual([
      { cluster: 'tainted', reason: 'cluster(s) had untolerated taint {maint:NoSchedule}' },
      { cluster: 'down', reason: FilterReason.notReady },
      { cluster: 'nostatus', reason: FilterReason.notReady },
      { cluster: 'deleting', reason: FilterReason.deleting },
      { cluster: 'noapi', reason: FilterReason.apiMissing },
      { cluster: 'withapi', reason: FilterReason.affinity },
    ]);
  });

  it('tolerations let a tainted cluster pass', () => {
    const r = filterClusters({
      clusters: [tainted],
      spec: spec({ clusterTolerations: [{ key: 'maint', operator: 'Exists', effect: 'NoSchedule' }] }),
      affinity: undefined,
      now,
    });
    expect(r.feasible).toHaveLength(1);
  });

  it('keeps a current cluster that is NotReady or NoSchedule-tainted (no blip failover)', () => {
    const r = filterClusters({
      clusters: [tainted, down],
      spec: spec({}, [
        { name: 'tainted', replicas: 1 },
        { name: 'down', replicas: 1 },
      ]),
      affinity: undefined,
      now,
    });
    expect(r.feasible.map((x) => x.metadata.name)).toEqual(['tainted', 'down']);
  });

  it('evicts a current cluster once a NoExecute taint is no longer tolerated', () => {
    const s = (seconds: number) =>
      spec(
        {
          clusterTolerations: [
            {
              key: 'cluster.karmada.io/not-ready',
              operator: 'Exists',
              effect: 'NoExecute',
              tolerationSeconds: seconds,
            },
          ],
        },
        [{ name: 'evicting', replicas: 2 }],
      );
    expect(filterClusters({ clusters: [evicting], spec: s(900), affinity: undefined, now }).feasible).toHaveLength(1);
    expect(filterClusters({ clusters: [evicting], spec: s(300), affinity: undefined, now }).filtered).toEqual([
      { cluster: 'evicting', reason: 'cluster(s) had untolerated taint {cluster.karmada.io/not-ready:NoExecute}' },
    ]);
  });

  it('requires the spread field on each cluster', () => {
    const r = filterClusters({
      clusters: [a, c],
      spec: spec({ spreadConstraints: [{ spreadByField: 'region', minGroups: 1, maxGroups: 2 }] }),
      affinity: undefined,
      now,
    });
    expect(r.filtered).toEqual([{ cluster: 'c', reason: 'cluster(s) did not have region property' }]);
  });
});
