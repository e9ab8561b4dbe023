import { describe, expect, it } from 'vitest';
import { combineWorkloadReports, ReportBook } from './reports.js';
import { type ClusterStatusPatch, unreachableWorkloadReport } from './report-model.js';

const now = new Date('2026-01-01T00:00:00Z');
const ready: ClusterStatusPatch = {
  conditions: [{ type: 'Ready', status: 'True', reason: 'ClusterReady', message: 'cluster is healthy and ready' }],
};
const expired = {
  conditions: [
    {
      type: 'Ready',
      status: 'Unknown',
      reason: 'ClusterStatusUnknown',
      message: 'Cluster status controller stopped posting cluster status.',
      lastTransitionTime: '2026-01-01T00:00:40Z',
    },
  ],
};

describe('ReportBook.clusterReport', () => {
  it('reports again what it reported once the scheduler set the cluster Ready=Unknown behind its back, with one id until folded', () => {
    const book = new ReportBook('test');
    let stored: Record<string, unknown> | undefined;
    const statusOf = () => stored;
    const first = book.clusterReport('m1', ready, now, statusOf);
    expect(first).toBeDefined();
    first!.commit();
    stored = { conditions: [{ ...ready.conditions[0], lastTransitionTime: '2025-12-31T00:00:00Z' }] };
    expect(book.clusterReport('m1', ready, now, statusOf)).toBeUndefined();

    // The agent was cut off; the cluster-health controller's Ready=Unknown is what is stored now.
    stored = expired;
    const again = book.clusterReport('m1', ready, now, statusOf);
    expect(again?.event.data).toMatchObject({
      statusPatch: ready,
      kubeEvent: { type: 'Normal', reason: 'ClusterReady' },
    });
    again!.commit();
    // Until the status writer folds it, the same report under the same id (JetStream drops the repeat).
    const repeat = book.clusterReport('m1', ready, now, statusOf);
    expect(repeat?.event.id).toBe(again!.event.id);
    repeat!.commit();
    stored = { conditions: [{ ...ready.conditions[0], lastTransitionTime: '2026-01-01T00:01:00Z' }] };
    expect(book.clusterReport('m1', ready, now, statusOf)).toBeUndefined();
  });
});

describe('ReportBook: a report not yet published', () => {
  it('is offered again under the same id (a retried publish is de-duplicated), stamped with the new time', () => {
    const book = new ReportBook('test');
    const statusOf = () => undefined;
    const a = book.clusterReport('m1', ready, now, statusOf);
    const later = new Date(now.getTime() + 1000);
    const b = book.clusterReport('m1', ready, later, statusOf);
    expect(b?.event.id).toBe(a!.event.id);
    expect(b?.event.time).toBe(later.toISOString());
    b!.commit();
    expect(book.clusterReport('m1', ready, later, statusOf)).toBeUndefined();
  });
});

describe('combineWorkloadReports', () => {
  const ref = (name: string) => ({ kind: 'ResourceBinding', namespace: 'default', name });
  const status = (replicas: number) => ({
    replicas,
    readyReplicas: replicas,
    availableReplicas: replicas,
    pendingReplicas: 0,
  });
  const report = (book: ReportBook, name: string, cluster: string, replicas: number) =>
    book.workloadReports({
      ref: ref(name),
      current: new Map([[cluster, { applied: true, health: 'Healthy' as const, status: status(replicas) }]]),
      owned: { has: (c) => c === cluster },
      targetClusters: ['m1', 'm2'],
      now,
      statusOf: () => undefined,
    });

  it('makes the single-cluster reports of one binding one event after every cluster report, and commits every cluster', () => {
    // Two drivers (one book each, as in a process serving many clusters), each pass's cluster report before its
    // workloads'. Binding a's report covers m2 too: it must not be stored before m2's summary, which counts its pods.
    const m1 = new ReportBook('m1');
    const m2 = new ReportBook('m2');
    const cluster1 = m1.clusterReport('m1', ready, now, () => undefined)!;
    const cluster2 = m2.clusterReport('m2', ready, now, () => undefined)!;
    const reports = [
      cluster1,
      ...report(m1, 'a', 'm1', 2),
      cluster2,
      ...report(m2, 'a', 'm2', 3),
      ...report(m2, 'b', 'm2', 1),
    ];
    const combined = combineWorkloadReports(reports);
    expect(combined.map((r) => r.event.subject)).toEqual([
      'Cluster//m1',
      'Cluster//m2',
      'ResourceBinding/default/a',
      'ResourceBinding/default/b',
    ]);
    expect(combined[2]!.event.data).toEqual({
      reports: [
        { clusterName: 'm1', applied: true, health: 'Healthy', status: status(2) },
        { clusterName: 'm2', applied: true, health: 'Healthy', status: status(3) },
      ],
      targetClusters: ['m1', 'm2'],
    });
    expect(combined[3]).toBe(reports[4]);
    // Committed, the combined event records both clusters' reports: nothing is reported again.
    combined[2]!.commit();
    expect(report(m1, 'a', 'm1', 2)).toEqual([]);
    expect(report(m2, 'a', 'm2', 3)).toEqual([]);
  });
});

describe('unreachableWorkloadReport', () => {
  it('a cluster out of reach reports Unknown health and no replica counts', () => {
    expect(unreachableWorkloadReport('m1')).toEqual({
      applied: false,
      health: 'Unknown',
      appliedMessage: 'cluster "m1" is not reachable',
    });
  });
});
