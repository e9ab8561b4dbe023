import { describe, expect, it } from 'vitest';
import { cloudEvent } from '@flotilla/bus';
import { patchReducer, ReducerRegistry, workloadStatusReducer } from './reducers.js';

const at = (iso: string, type: string, data: unknown) =>
  cloudEvent({
    source: 'test',
    type,
    kind: 'ResourceBinding',
    namespace: 'default',
    name: 'web-deployment',
    time: new Date(iso),
    data,
  });

describe('patchReducer', () => {
  it('replaces fields, merges conditions by type, and keeps what the patch does not name', () => {
    const s1 = patchReducer(
      undefined,
      at('2026-01-01T00:00:00Z', 'BindingScheduled', {
        statusPatch: { lastScheduledTime: 'x', conditions: [{ type: 'Scheduled', status: 'True' }] },
      }),
    );
    const s2 = patchReducer(
      s1,
      at('2026-01-01T00:01:00Z', 'BindingScheduled', {
        statusPatch: { schedulerObservingAffinityName: 'g2', conditions: [{ type: 'Scheduled', status: 'True' }] },
      }),
    );
    expect(s2).toEqual({
      lastScheduledTime: 'x',
      schedulerObservingAffinityName: 'g2',
      conditions: [{ type: 'Scheduled', status: 'True', lastTransitionTime: '2026-01-01T00:00:00.000Z' }],
    });
  });
  it('leaves status alone for an event without a patch', () => {
    expect(patchReducer({ a: 1 }, at('2026-01-01T00:00:00Z', 'Anything', {}))).toEqual({ a: 1 });
  });
});

describe('workloadStatusReducer', () => {
  it('keeps one aggregatedStatus entry per cluster, sorted, and drops removed ones', () => {
    const r = new ReducerRegistry().register('WorkloadStatusReported', workloadStatusReducer);
    let s = r.fold(
      undefined,
      at('2026-01-01T00:00:00Z', 'WorkloadStatusReported', {
        clusterName: 'm2',
        applied: true,
        health: 'Healthy',
        status: { readyReplicas: 2 },
      }),
    );
    s = r.fold(
      s,
      at('2026-01-01T00:00:01Z', 'WorkloadStatusReported', {
        clusterName: 'm1',
        applied: true,
        health: 'Healthy',
        status: { readyReplicas: 1 },
      }),
    );
    s = r.fold(
      s,
      at('2026-01-01T00:00:02Z', 'WorkloadStatusReported', {
        clusterName: 'm2',
        applied: true,
        health: 'Unhealthy',
        status: { readyReplicas: 0 },
      }),
    );
    expect(s.aggregatedStatus).toEqual([
      { clusterName: 'm1', applied: true, health: 'Healthy', status: { readyReplicas: 1 } },
      { clusterName: 'm2', applied: true, health: 'Unhealthy', status: { readyReplicas: 0 } },
    ]);
    s = r.fold(
      s,
      at('2026-01-01T00:00:03Z', 'WorkloadStatusReported', { clusterName: 'm1', applied: false, removed: true }),
    );
    expect((s.aggregatedStatus as unknown[]).length).toBe(1);
  });
});

describe('patchReducer: removing a field', () => {
  it('a field patched to null is removed (JSON merge patch)', () => {
    const s = patchReducer(
      { schedulerObservingAffinityName: 'g1', lastScheduledTime: 'x' },
      at('2026-01-01T00:00:00Z', 'BindingScheduled', {
        statusPatch: { schedulerObservingAffinityName: null, lastScheduledTime: 'y' },
      }),
    );
    expect(s).toEqual({ lastScheduledTime: 'y' });
  });
});
