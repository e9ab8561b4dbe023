// Karmada v1.18's overflowAffinities (reference: karmada-scheduling §9; upstream e2e "[OverflowAffinities] replica
// scheduling with overflow affinities" and the proposal docs/proposals/scheduling/multi-scheduling-group/
// overflow-affinities): tiers inside one clusterAffinities term that take what the term's own clusters cannot hold.
import { describe, expect, it } from 'vitest';
import { decideBinding, statusAfter } from './decide-binding.js';
import { feasibleClusterNames } from './feasible-clusters.js';
import { bindingClusterTiers, clusterTier } from './overflow.js';
import { scheduleBinding, type ScheduleResult } from './schedule.js';
import type { Cluster, ClusterAffinityTerm, Placement, ResourceBinding, TargetCluster } from './types.js';

const now = new Date('2026-04-17T15:04:05Z');

/** A Ready cluster with room for `free` more pods; `used` pods already run there (the workload's own among them). */
function cluster(
  name: string,
  free: number,
  opts: { used?: number; ready?: boolean; labels?: Record<string, string> } = {},
): Cluster {
  const used = opts.used ?? 0;
  return {
    apiVersion: 'cluster.karmada.io/v1alpha1',
    kind: 'Cluster',
    metadata: { name, labels: opts.labels ?? {} },
    spec: {},
    status: {
      conditions: [{ type: 'Ready', status: opts.ready === false ? 'False' : 'True' }],
      resourceSummary: { allocatable: { pods: free + used, cpu: '64' }, allocated: { pods: used } },
    },
  };
}

const aggregated = { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Aggregated' } as const;
const dynamic = {
  replicaSchedulingType: 'Divided',
  replicaDivisionPreference: 'Weighted',
  weightPreference: { dynamicWeight: 'AvailableReplicas' },
} as const;

/** The upstream e2e's placement: primary = member1, overflow "secondary" = member2 (and more tiers when given). */
function placement(
  replicaScheduling: Placement['replicaScheduling'] = aggregated,
  overflow: ClusterAffinityTerm['overflowAffinities'] = [{ affinityName: 'secondary', clusterNames: ['member2'] }],
  own: Omit<ClusterAffinityTerm, 'affinityName' | 'overflowAffinities'> = { clusterNames: ['member1'] },
): Placement {
  return { clusterAffinities: [{ affinityName: 'primary', ...own, overflowAffinities: overflow }], replicaScheduling };
}

function rb(
  p: Placement,
  replicas: number,
  prev: { clusters?: TargetCluster[]; rescheduleTriggeredAt?: string; kind?: string } = {},
): ResourceBinding {
  const kind = prev.kind ?? 'Deployment';
  return {
    apiVersion: 'work.karmada.io/v1alpha2',
    kind: 'ResourceBinding',
    metadata: { name: 'app', namespace: 'default' },
    spec: {
      resource: { apiVersion: kind === 'Deployment' ? 'apps/v1' : 'v1', kind, namespace: 'default', name: 'app' },
      replicas,
      ...(kind === 'Deployment' && { replicaRequirements: { resourceRequest: { cpu: '10m' } } }),
      placement: p,
      ...(prev.clusters && { clusters: prev.clusters }),
      ...(prev.rescheduleTriggeredAt && { rescheduleTriggeredAt: prev.rescheduleTriggeredAt }),
    },
    status: {
      schedulerObservingAffinityName: 'primary',
      ...(prev.rescheduleTriggeredAt && { lastScheduledTime: '2026-04-17T15:00:00Z' }),
    },
  };
}

const on = (m: Record<string, number>): TargetCluster[] =>
  Object.entries(m).map(([name, replicas]) => ({ name, replicas }));

const outcome = (r: ScheduleResult) =>
  r.ok
    ? {
        group: r.affinityName,
        clusters: Object.fromEntries(r.clusters.map((t) => [t.name, t.replicas])),
        tiers: r.tiers,
      }
    : { failed: r.reason, message: r.message, kept: r.keptClusters };

describe('overflowAffinities: assignment tier by tier (Karmada v1.18)', () => {
  it.each<{ case: string; binding: ResourceBinding; clusters: Cluster[]; want: ReturnType<typeof outcome> }>([
    {
      case: 'primary sufficient: every replica stays in the term’s own clusters',
      binding: rb(placement(), 2),
      clusters: [cluster('member1', 2), cluster('member2', 2)],
      want: { group: 'primary', clusters: { member1: 2 }, tiers: { member1: 'primary' } },
    },
    {
      case: 'primary exhausted: the rest overflows to the next tier (upstream e2e: 4 replicas, quota 2 each)',
      binding: rb(placement(), 4, { clusters: on({ member1: 2 }) }),
      clusters: [cluster('member1', 0, { used: 2 }), cluster('member2', 2)],
      want: {
        group: 'primary',
        clusters: { member1: 2, member2: 2 },
        tiers: { member1: 'primary', member2: 'secondary' },
      },
    },
    {
      case: 'every tier exhausted: Unschedulable, the previous assignment kept (upstream e2e: 5 replicas)',
      binding: rb(placement(), 5, { clusters: on({ member1: 2, member2: 2 }) }),
      clusters: [cluster('member1', 0, { used: 2 }), cluster('member2', 0, { used: 2 })],
      want: {
        failed: 'Unschedulable',
        message:
          'group primary: Clusters available replicas are not enough to schedule.; previous assignment kept (member1:2, member2:2)',
        kept: on({ member1: 2, member2: 2 }),
      },
    },
    {
      case: 'previous replicas counted as capacity: a full primary keeps its own 4, only the 2 more overflow',
      binding: rb(placement(), 6, { clusters: on({ member1: 4 }) }),
      clusters: [cluster('member1', 0, { used: 4 }), cluster('member2', 10)],
      want: {
        group: 'primary',
        clusters: { member1: 4, member2: 2 },
        tiers: { member1: 'primary', member2: 'secondary' },
      },
    },
    {
      case: 'scale-in gives the overflow back first (upstream e2e: back to 2 replicas, member2 dropped)',
      binding: rb(placement(), 2, { clusters: on({ member1: 2, member2: 2 }) }),
      clusters: [cluster('member1', 0, { used: 2 }), cluster('member2', 0, { used: 2 })],
      want: { group: 'primary', clusters: { member1: 2 }, tiers: { member1: 'primary' } },
    },
    {
      case: 'scale-in shrinks the last tier in use and keeps the earlier ones whole',
      binding: rb(placement(), 4, { clusters: on({ member1: 2, member2: 3 }) }),
      clusters: [cluster('member1', 0, { used: 2 }), cluster('member2', 0, { used: 3 })],
      want: {
        group: 'primary',
        clusters: { member1: 2, member2: 2 },
        tiers: { member1: 'primary', member2: 'secondary' },
      },
    },
    {
      case: 'Aggregated fills the primary before a roomier overflow cluster (tier comes before capacity)',
      binding: rb(placement(), 3),
      clusters: [cluster('member1', 3), cluster('member2', 100)],
      want: { group: 'primary', clusters: { member1: 3 }, tiers: { member1: 'primary' } },
    },
    {
      case: 'DynamicWeight inside each tier: 8 over primary 3:1 (target 4) then overflow 10:30 (target 4)',
      binding: rb(
        placement(dynamic, [{ affinityName: 'cloud', clusterNames: ['member3', 'member4'] }], {
          clusterNames: ['member1', 'member2'],
        }),
        8,
      ),
      clusters: [cluster('member1', 3), cluster('member2', 1), cluster('member3', 10), cluster('member4', 30)],
      want: {
        group: 'primary',
        clusters: { member1: 3, member2: 1, member3: 1, member4: 3 },
        tiers: { member1: 'primary', member2: 'primary', member3: 'cloud', member4: 'cloud' },
      },
    },
    {
      case: 'three tiers: the second fills up and the third takes the remainder',
      binding: rb(
        placement(aggregated, [
          { affinityName: 'near', clusterNames: ['member2'] },
          { affinityName: 'far', clusterNames: ['member3'] },
        ]),
        9,
      ),
      clusters: [cluster('member1', 4), cluster('member2', 3), cluster('member3', 10)],
      want: {
        group: 'primary',
        clusters: { member1: 4, member2: 3, member3: 2 },
        tiers: { member1: 'primary', member2: 'near', member3: 'far' },
      },
    },
    {
      case: 'an empty tier (its only cluster is not Ready) is skipped; the next one takes the overflow',
      binding: rb(
        placement(aggregated, [
          { affinityName: 'near', clusterNames: ['member2'] },
          { affinityName: 'far', clusterNames: ['member3'] },
        ]),
        5,
      ),
      clusters: [cluster('member1', 2), cluster('member2', 10, { ready: false }), cluster('member3', 10)],
      want: { group: 'primary', clusters: { member1: 2, member3: 3 }, tiers: { member1: 'primary', member3: 'far' } },
    },
    {
      case: 'a cluster in several tiers belongs to the first: member2 matches the term by label and "secondary" by name',
      binding: rb(placement(aggregated, undefined, { labelSelector: { matchLabels: { site: 'idc' } } }), 3),
      clusters: [cluster('member1', 0), cluster('member2', 5, { labels: { site: 'idc' } })],
      want: { group: 'primary', clusters: { member2: 3 }, tiers: { member2: 'primary' } },
    },
    {
      case: 'the observed group is the term’s name even when every replica sits in an overflow tier',
      binding: rb(placement(), 3),
      clusters: [cluster('member1', 0, { used: 5 }), cluster('member2', 5)],
      want: { group: 'primary', clusters: { member2: 3 }, tiers: { member2: 'secondary' } },
    },
    {
      case: 'Steady with room back in the primary: a scale-up fills the primary first and the overflow gives back',
      binding: rb(placement(), 3, { clusters: on({ member2: 2 }) }),
      clusters: [cluster('member1', 10), cluster('member2', 8, { used: 2 })],
      want: { group: 'primary', clusters: { member1: 3 }, tiers: { member1: 'primary' } },
    },
    {
      case: 'Fresh (a WorkloadRebalancer): recomputed tier by tier, the overflow moved back to the primary',
      binding: rb(placement(), 2, { clusters: on({ member2: 2 }), rescheduleTriggeredAt: '2026-04-17T15:01:00Z' }),
      clusters: [cluster('member1', 10), cluster('member2', 8, { used: 2 })],
      want: { group: 'primary', clusters: { member1: 2 }, tiers: { member1: 'primary' } },
    },
    {
      case: 'a non-workload (a ConfigMap) uses the term’s own clusters only',
      binding: rb(placement(), 0, { kind: 'ConfigMap' }),
      clusters: [cluster('member1', 0), cluster('member2', 5)],
      want: { group: 'primary', clusters: { member1: 0 }, tiers: { member1: 'primary' } },
    },
  ])('$case', ({ binding, clusters, want }) => {
    expect(outcome(scheduleBinding({ binding, clusters, now }))).toEqual(want);
  });

  it('a term without room in any tier moves on to the next clusterAffinities term, which is then observed', () => {
    const p = placement();
    p.clusterAffinities!.push({ affinityName: 'backup', clusterNames: ['member3'] });
    const r = scheduleBinding({
      binding: rb(p, 5),
      clusters: [cluster('member1', 2), cluster('member2', 2), cluster('member3', 5)],
      now,
    });
    expect(outcome(r)).toEqual({ group: 'backup', clusters: { member3: 5 }, tiers: undefined });
    expect(r.attempts.map((a) => [a.affinityName, a.ok ? 'ok' : a.message])).toEqual([
      ['primary', 'Clusters available replicas are not enough to schedule.'],
      ['backup', 'ok'],
    ]);
  });

  it('the status written after an overflow schedule names the term, and describes each cluster’s tier', () => {
    const binding = rb(placement(), 4);
    delete binding.status;
    const clusters = [cluster('member1', 2), cluster('member2', 5)];
    const d = decideBinding(binding, clusters, now);
    if (d.kind !== 'Scheduled' || !d.result.ok) throw new Error('expected a scheduled result');
    const status = statusAfter(d, undefined, 1, now);
    expect(status.schedulerObservingAffinityName).toBe('primary');
    const stored = { ...binding, spec: { ...binding.spec, clusters: d.result.clusters }, status };
    expect(bindingClusterTiers(stored, clusters)).toEqual({ member1: 'primary', member2: 'secondary' });
  });

  it('bindingClusterTiers is undefined without overflowAffinities on the observed term', () => {
    const p: Placement = { clusterAffinities: [{ affinityName: 'primary', clusterNames: ['member1'] }] };
    expect(bindingClusterTiers({ ...rb(p, 1), spec: { ...rb(p, 1).spec, clusters: on({ member1: 1 }) } }, [])).toBe(
      undefined,
    );
  });

  it.each([
    ['member1', 'the term itself', 0],
    ['member2', 'the first overflow entry', 1],
    ['member3', 'both overflow entries: the first', 1],
    ['member4', 'no tier (the filter keeps it out)', 1000],
  ])('tier of %s (%s) is %i', (name, _why, tier) => {
    const term = { clusterNames: ['member1'] };
    const overflow = [{ clusterNames: ['member2', 'member3'] }, { clusterNames: ['member3'] }];
    expect(clusterTier(cluster(name, 1), term, overflow)).toBe(tier);
  });
});

describe('overflowAffinities: the FederatedHPA’s feasible clusters follow the tiers', () => {
  it('a workload may be assigned over every tier of the first term; a non-workload over the term’s own clusters', () => {
    const p = placement(aggregated, [
      { affinityName: 'near', clusterNames: ['member2'] },
      { affinityName: 'far', clusterNames: ['member3'] },
    ]);
    const clusters = [cluster('member1', 1), cluster('member2', 1), cluster('member3', 1), cluster('member4', 1)];
    expect(feasibleClusterNames(rb(p, 3), clusters, now)).toEqual(['member1', 'member2', 'member3']);
    expect(feasibleClusterNames(rb(p, 0, { kind: 'ConfigMap' }), clusters, now)).toEqual(['member1']);
  });
});
