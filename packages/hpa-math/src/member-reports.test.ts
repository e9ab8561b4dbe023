import { describe, expect, it } from 'vitest';
import { memberHpaStatuses, memberPods, memberReports, type AggregatedWorkloadEntry } from './member-reports.js';

const entries: AggregatedWorkloadEntry[] = [
  {
    clusterName: 'member1',
    status: {
      replicas: 3,
      readyReplicas: 2,
      pendingReplicas: 1,
      cpuRequestMilli: 500,
      hpa: { currentReplicas: 3, desiredReplicas: 4, currentCPUUtilizationPercentage: 90 },
    },
  },
  { clusterName: 'member2', status: { replicas: 1, readyReplicas: 1 } },
  { clusterName: 'gone', status: { replicas: 5, readyReplicas: 5, hpa: { currentReplicas: 5 } } },
  { clusterName: 'member3' },
];

describe('member reports of a binding', () => {
  it('reads the clusters the binding places the workload on, each with its Ready condition and usage', () => {
    const ready = new Map([
      ['member1', true],
      ['member2', false],
    ]);
    const usage = new Map([
      ['member1', 900],
      ['gone', 5000],
    ]);
    expect(memberReports(entries, ['member1', 'member2', 'member3'], ready, (c) => usage.get(c))).toEqual([
      {
        cluster: 'member1',
        clusterReady: true,
        specReplicas: 3,
        readyReplicas: 2,
        pendingReplicas: 1,
        cpuUsageMilli: 900,
        cpuRequestMilli: 500,
      },
      { cluster: 'member2', clusterReady: false, specReplicas: 1, readyReplicas: 1, pendingReplicas: 0 },
      { cluster: 'member3', clusterReady: false, specReplicas: 0, readyReplicas: 0, pendingReplicas: 0 },
    ]);
  });

  it('reports no usage where none is known', () => {
    const reports = memberReports(entries, ['member1'], new Map([['member1', true]]));
    expect(reports[0]).not.toHaveProperty('cpuUsageMilli');
  });

  it('reads the member HPAs of the bound clusters that report one', () => {
    expect(memberHpaStatuses(entries, ['member1', 'member2'])).toEqual([
      { cluster: 'member1', currentReplicas: 3, desiredReplicas: 4, currentCPUUtilizationPercentage: 90 },
    ]);
  });

  it('splits a member’s usage over its ready pods without losing any', () => {
    const pods = memberPods({
      cluster: 'm',
      clusterReady: true,
      specReplicas: 4,
      readyReplicas: 3,
      pendingReplicas: 1,
      cpuUsageMilli: 1000,
      cpuRequestMilli: 500,
    });
    expect(pods.map((p) => p.state)).toEqual(['ready', 'ready', 'ready', 'pending']);
    expect(pods.reduce((n, p) => n + (p.valueMilli ?? 0), 0)).toBe(1000);
  });

  it('without usage, the ready pods have no sample (the metric is missing, not zero)', () => {
    const pods = memberPods({
      cluster: 'm',
      clusterReady: true,
      specReplicas: 2,
      readyReplicas: 2,
      pendingReplicas: 0,
    });
    expect(pods).toEqual([
      { state: 'ready', valueMilli: null },
      { state: 'ready', valueMilli: null },
    ]);
  });
});
