import { describe, expect, it } from 'vitest';
import { cloudEvent, EventTypes } from '@flotilla/bus';
import {
  scheduleBinding,
  type Cluster,
  type Placement,
  type ResourceBinding,
  type ScheduleResult,
} from '@flotilla/scheduling';
import { schedulingDecisionLines } from './describe.js';

const decidedAt = new Date('2024-04-17T15:04:05Z');
const now = new Date('2024-04-17T15:09:05Z');

const cluster = (name: string, ready = true, taints?: NonNullable<Cluster['spec']>['taints']): Cluster => ({
  metadata: { name },
  ...(taints && { spec: { taints } }),
  status: {
    conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
    resourceSummary: { allocatable: { pods: 100 } },
  },
});

const binding = (
  placement: Placement,
  extra: Partial<ResourceBinding['spec']> = {},
  status?: ResourceBinding['status'],
): ResourceBinding => ({
  kind: 'ResourceBinding',
  metadata: { name: 'nginx-deployment', namespace: 'default', uid: 'u1' },
  spec: {
    resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'nginx' },
    replicas: 2,
    placement,
    ...extra,
  },
  ...(status && { status }),
});

/** A decision event with the data the affinity scheduler publishes (services/affinity-scheduler/src/decision-event.ts). */
function decisionEventOf(r: ScheduleResult, extra: Record<string, unknown> = {}, time = decidedAt) {
  const groups = r.attempts.map((a) => ({
    affinityName: a.affinityName,
    ok: a.ok,
    message: a.message,
    filtered: a.filtered,
  }));
  const data = r.ok
    ? {
        clusters: r.clusters,
        affinityName: r.affinityName,
        ...(r.tiers && { tiers: r.tiers }),
        mode: r.mode,
        ...extra,
        filtered: r.filtered,
        groups,
        kubeEvent: { type: 'Normal', message: 'placed' },
      }
    : {
        reason: r.reason,
        keptClusters: r.keptClusters,
        mode: r.mode,
        ...extra,
        filtered: r.filtered,
        groups,
        kubeEvent: { type: 'Warning', message: r.message },
      };
  const type = r.ok ? EventTypes.BindingScheduled : EventTypes.BindingScheduleFailed;
  // Through JSON, as the event is stored: absent group names disappear rather than stay undefined.
  return JSON.parse(
    JSON.stringify(
      cloudEvent({
        source: 'affinity-scheduler',
        type,
        kind: 'ResourceBinding',
        namespace: 'default',
        name: 'nginx-deployment',
        time,
        data,
      }),
    ),
  ) as ReturnType<typeof cloudEvent>;
}

// The multiple scheduling groups proposal's sample: three groups, the first naming a cluster that does not exist.
const seedGroups: Placement = {
  clusterAffinities: [
    { affinityName: 'dc-shanghai', clusterNames: ['unavailable'] },
    { affinityName: 'dc-beijing', clusterNames: ['member1'] },
    { affinityName: 'dc-hongkong', clusterNames: ['member2'] },
  ],
};
const MISMATCH = 'cluster(s) did not match the placement cluster affinity constraint';

describe('describe rb: the scheduling decision section', () => {
  it('the multiple scheduling groups proposal: the group the replicas landed in, replicas per cluster, and every group tried with its filtered clusters', () => {
    const r = scheduleBinding({
      binding: binding(seedGroups),
      clusters: [cluster('member1'), cluster('member2')],
      now: decidedAt,
    });
    expect(schedulingDecisionLines({ decision: decisionEventOf(r) }, now).join('\n')).toBe(
      [
        'Scheduling decision:',
        '  Event:           BindingScheduled, 5m ago (2024-04-17T15:04:05.000Z)',
        '  Mode:            Steady',
        '  Affinity group:  dc-beijing',
        '  Clusters:',
        '    Cluster   Replicas',
        '    member1   2',
        '  Groups tried:',
        '    dc-shanghai:  Failed: 0/2 clusters are available: 2 cluster(s) did not match the placement cluster affinity constraint.',
        '      Filtered clusters:',
        '        Cluster   Reason',
        `        member1   ${MISMATCH}`,
        `        member2   ${MISMATCH}`,
        '    dc-beijing:  Scheduled',
        '      Filtered clusters:',
        '        Cluster   Reason',
        `        member2   ${MISMATCH}`,
      ].join('\n'),
    );
  });

  it('overflowAffinities: the term observed, and which tier each cluster came from', () => {
    const placement: Placement = {
      clusterAffinities: [
        {
          affinityName: 'on-prem',
          clusterNames: ['member1'],
          overflowAffinities: [{ affinityName: 'public-cloud', clusterNames: ['member2'] }],
        },
      ],
      replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Aggregated' },
    };
    const small = {
      ...cluster('member1'),
      status: { ...cluster('member1').status, resourceSummary: { allocatable: { pods: 1 } } },
    };
    const r = scheduleBinding({ binding: binding(placement), clusters: [small, cluster('member2')], now: decidedAt });
    expect(schedulingDecisionLines({ decision: decisionEventOf(r) }, now).slice(3, 8)).toEqual([
      '  Affinity group:  on-prem',
      '  Clusters:',
      '    Cluster   Replicas   Tier',
      '    member1   1          on-prem',
      '    member2   1          public-cloud',
    ]);
  });

  it('a failure: reason, the condition message, the kept assignment, and why each group tried failed', () => {
    const observed = { schedulerObservingAffinityName: 'dc-beijing', lastScheduledTime: '2024-04-17T15:00:00Z' };
    const b = binding(seedGroups, { clusters: [{ name: 'member1', replicas: 2 }] }, observed);
    const evicted = cluster('member1', false, [
      { key: 'cluster.karmada.io/not-ready', effect: 'NoExecute', timeAdded: '2024-04-17T15:00:00Z' },
    ]);
    const r = scheduleBinding({ binding: b, clusters: [evicted, cluster('member2', false)], now: decidedAt });
    const TAINT = 'cluster(s) had untolerated taint {cluster.karmada.io/not-ready:NoExecute}';
    const lines = schedulingDecisionLines({ decision: decisionEventOf(r) }, now);
    expect(lines.slice(0, 5)).toEqual([
      'Scheduling decision:',
      '  Event:           BindingScheduleFailed, 5m ago (2024-04-17T15:04:05.000Z)',
      '  Mode:            Steady',
      '  Reason:          NoClusterFit',
      `  Message:         group dc-beijing: 0/2 clusters are available: 1 ${TAINT}, 1 cluster(s) were not ready.; group dc-hongkong: 0/2 clusters are available: 1 ${TAINT}, 1 cluster(s) were not ready.; previous assignment kept (member1:2)`,
    ]);
    // Resumed at the observed group: dc-shanghai was not tried.
    expect(lines.slice(5).join('\n')).toBe(
      [
        '  Affinity group:  none succeeded',
        '  Kept clusters:',
        '    Cluster   Replicas',
        '    member1   2',
        '  Groups tried:',
        `    dc-beijing:  Failed: 0/2 clusters are available: 1 ${TAINT}, 1 cluster(s) were not ready.`,
        '      Filtered clusters:',
        '        Cluster   Reason',
        `        member1   ${TAINT}`,
        '        member2   cluster(s) were not ready',
        `    dc-hongkong:  Failed: 0/2 clusters are available: 1 ${TAINT}, 1 cluster(s) were not ready.`,
        '      Filtered clusters:',
        '        Cluster   Reason',
        `        member1   ${TAINT}`,
        '        member2   cluster(s) were not ready',
      ].join('\n'),
    );
  });

  it('a single clusterAffinity: no group, the filtered clusters directly', () => {
    const single = binding({ clusterAffinity: { clusterNames: ['member1', 'member2'] } });
    const r = scheduleBinding({
      binding: single,
      clusters: [cluster('member1'), cluster('member2'), cluster('member3')],
      now: decidedAt,
    });
    expect(schedulingDecisionLines({ decision: decisionEventOf(r) }, now).slice(3)).toEqual([
      '  Affinity group:  <none> (single clusterAffinity)',
      '  Clusters:',
      '    Cluster   Replicas',
      '    member1   2',
      '    member2   2',
      '  Filtered clusters:',
      '    Cluster   Reason',
      `    member3   ${MISMATCH}`,
    ]);
  });

  it('says so when nothing was filtered, and when there is no decision yet', () => {
    const r = scheduleBinding({ binding: binding({}), clusters: [cluster('member1')], now: decidedAt });
    expect(schedulingDecisionLines({ decision: decisionEventOf(r) }, now)).toContain('  Filtered clusters:  <none>');
    expect(schedulingDecisionLines({}, now)).toEqual(['Scheduling decision:  <none>']);
  });

  it('prints what there is of an event with less data', () => {
    const e = cloudEvent({
      source: 'affinity-scheduler',
      type: EventTypes.BindingScheduled,
      kind: 'ResourceBinding',
      name: 'x',
      time: decidedAt,
      data: {},
    });
    expect(schedulingDecisionLines({ decision: e }, now)).toEqual([
      'Scheduling decision:',
      '  Event:           BindingScheduled, 5m ago (2024-04-17T15:04:05.000Z)',
      '  Affinity group:  <none> (single clusterAffinity)',
      '  Clusters:        <none>',
      '  Filtered clusters:  <none>',
    ]);
  });
  it('names what asked for scheduling, when the event says', () => {
    const r = scheduleBinding({ binding: binding(seedGroups), clusters: [cluster('member1')], now: decidedAt });
    expect(
      schedulingDecisionLines({ decision: decisionEventOf(r, { trigger: 'PlacementChanged' }) }, now).slice(1, 4),
    ).toEqual([
      '  Event:           BindingScheduled, 5m ago (2024-04-17T15:04:05.000Z)',
      '  Trigger:         PlacementChanged',
      '  Mode:            Steady',
    ]);
  });

  it('a later confirmation without rescheduling is shown next to the decision it confirms', () => {
    const r = scheduleBinding({
      binding: binding(seedGroups),
      clusters: [cluster('member1'), cluster('member2')],
      now: decidedAt,
    });
    const kept = cloudEvent({
      source: 'affinity-scheduler',
      type: EventTypes.BindingScheduled,
      kind: 'ResourceBinding',
      namespace: 'default',
      name: 'nginx-deployment',
      time: new Date('2024-04-17T15:08:05Z'),
      data: {
        clusters: [{ name: 'member1', replicas: 2 }],
        affinityName: 'dc-beijing',
        mode: 'Steady',
        kept: true,
        filtered: [],
        groups: [],
      },
    });
    const lines = schedulingDecisionLines({ decision: decisionEventOf(r), kept }, now);
    expect(lines.slice(1, 3)).toEqual([
      '  Event:           BindingScheduled, 5m ago (2024-04-17T15:04:05.000Z)',
      '  Kept:            60s ago (2024-04-17T15:08:05.000Z): nothing asked for rescheduling, the assignment stands',
    ]);
    expect(lines).toContain(
      '    dc-shanghai:  Failed: 0/2 clusters are available: 2 cluster(s) did not match the placement cluster affinity constraint.',
    );
    // Only the confirmation left: no filter ran for it, and describe does not pretend one found nothing.
    expect(schedulingDecisionLines({ decision: kept }, now).slice(-1)).toEqual([
      '  Groups tried:    <none> (kept without rescheduling)',
    ]);
  });
});
