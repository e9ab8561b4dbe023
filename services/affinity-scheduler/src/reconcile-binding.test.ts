import { describe, expect, it } from 'vitest';
import type { Cluster, ResourceBinding } from '@flotilla/scheduling';
import { decideBinding, decisionEvent } from './reconcile-binding.js';

const now = new Date('2026-01-01T00:00:00Z');
const cluster = (name: string, ready = true): Cluster => ({
  metadata: { name },
  // A not-ready cluster past the grace period carries the taint manager's NoExecute taint.
  ...(ready ? {} : { spec: { taints: [{ key: 'cluster.karmada.io/not-ready', effect: 'NoExecute', timeAdded: '2025-12-31T23:00:00Z' }] } }),
  status: {
    conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
    resourceSummary: { allocatable: { cpu: '8', memory: '32Gi', pods: '110' } },
  },
});
const groups = [
  { affinityName: 'dc-beijing', clusterNames: ['member1'] },
  { affinityName: 'dc-hongkong', clusterNames: ['member2'] },
];
const binding = (clusters: Array<{ name: string; replicas: number }>, generation: number, status?: ResourceBinding['status']): ResourceBinding => ({
  apiVersion: 'work.karmada.io/v1alpha2',
  kind: 'ResourceBinding',
  metadata: { name: 'nginx-deployment', namespace: 'default', uid: 'u-1', generation },
  spec: {
    resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'nginx', uid: 't-1' },
    replicas: 2,
    clusters,
    placement: { clusterAffinities: groups, replicaScheduling: { replicaSchedulingType: 'Duplicated' } },
  },
  ...(status ? { status } : {}),
});

describe('decideBinding', () => {
  it('writes and announces a first placement', () => {
    const d = decideBinding(binding([], 1), [cluster('member1'), cluster('member2')], now);
    expect(d.clusters).toEqual([{ name: 'member1', replicas: 2 }]);
    expect(d.announce).toBe(true);
  });

  it('does nothing when the stored placement and generation are what it would decide', () => {
    const status = { schedulerObservingAffinityName: 'dc-beijing', lastScheduledTime: '2026-01-01T00:00:00Z', schedulerObservedGeneration: 2 };
    const d = decideBinding(binding([{ name: 'member1', replicas: 2 }], 2, status), [cluster('member1'), cluster('member2')], now, { generation: 2, affinityName: 'dc-beijing', lastScheduledTime: '2026-01-01T00:00:00Z' });
    expect(d.clusters).toBeUndefined();
    expect(d.announce).toBe(false);
  });

  it('resumes from its own newer decision before the status writer has folded it, even within the same second', () => {
    // status still says dc-beijing (generation 2); the scheduler already failed over to dc-hongkong (generation 3)
    const status = { schedulerObservingAffinityName: 'dc-beijing', lastScheduledTime: '2026-01-01T00:00:00Z', schedulerObservedGeneration: 2 };
    const d = decideBinding(binding([{ name: 'member2', replicas: 2 }], 3, status), [cluster('member1'), cluster('member2')], now, {
      generation: 3,
      affinityName: 'dc-hongkong',
      lastScheduledTime: '2026-01-01T00:00:00Z',
    });
    expect(d.clusters).toBeUndefined();
    expect(d.result.ok && d.result.affinityName).toBe('dc-hongkong');
  });

  it('keeps the placement and announces once when every group fails (both clusters tainted)', () => {
    const b = binding([{ name: 'member2', replicas: 2 }], 3);
    const memo = { generation: 3, affinityName: 'dc-hongkong', lastScheduledTime: '2026-01-01T00:00:00Z' };
    const d = decideBinding(b, [cluster('member1', false), cluster('member2', false)], now, memo);
    expect(d.result.ok).toBe(false);
    expect(d.clusters).toBeUndefined();
    expect(d.announce).toBe(true);
    const e = decisionEvent(b, d, 3, now);
    expect(e.type).toBe('io.flotilla.BindingScheduleFailed');
    expect((e.data as { statusPatch: { conditions: Array<{ status: string }> } }).statusPatch.conditions[0]!.status).toBe('False');
    // the controller remembers the failure next to the last success
    const again = decideBinding(b, [cluster('member1', false), cluster('member2', false)], now, { ...memo, failureMessage: d.result.ok ? '' : d.result.message });
    expect(again.announce).toBe(false);
  });

  it('derives the event id from uid, generation and result, so a repeated decision is de-duplicated', () => {
    const b = binding([], 1);
    const d1 = decideBinding(b, [cluster('member1')], now);
    const d2 = decideBinding(b, [cluster('member1')], new Date(now.getTime() + 5000));
    expect(decisionEvent(b, d1, 2, now).id).toBe(decisionEvent(b, d2, 2, now).id);
    expect(decisionEvent(b, d1, 3, now).id).not.toBe(decisionEvent(b, d1, 2, now).id);
  });
});
