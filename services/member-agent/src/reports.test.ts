import { describe, expect, it } from 'vitest';
import { ReportBook } from './reports.js';
import type { ClusterStatusPatch } from './report-model.js';

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
