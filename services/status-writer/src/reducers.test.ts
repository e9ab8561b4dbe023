import { describe, expect, it } from 'vitest';
import { cloudEvent } from '@flotilla/bus';
import {
  fullyAppliedCondition,
  patchReducer,
  podsScheduledCondition,
  ReducerRegistry,
  workloadStatusReducer,
} from './reducers.js';

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

describe('ReducerRegistry.changesNothing', () => {
  const r = new ReducerRegistry().register('WorkloadStatusReported', workloadStatusReducer);
  it.each([
    ['a patch-folded event without a patch (a template ReplicasApplied)', 'ReplicasApplied', { toReplicas: 3 }, true],
    ['a patch-folded event with a patch', 'BindingScheduled', { statusPatch: { x: 1 } }, false],
    ['an event with a reducer of its own', 'WorkloadStatusReported', { clusterName: 'm1', applied: true }, false],
  ])('%s: %s', (_what, type, data, nothing) => {
    const e = at('2026-01-01T00:00:00Z', type, data);
    expect(r.changesNothing(e)).toBe(nothing);
    // What it says agrees with the fold, from nothing and from a status.
    if (nothing) for (const s of [undefined, { a: 1 }]) expect(r.fold(s, e)).toEqual(s ?? {});
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

describe('workloadStatusReducer: the reports of several clusters in one event', () => {
  it('folds to what the same reports one by one fold to, FullyApplied and PodsScheduled included', () => {
    const t = '2026-01-01T00:00:00Z';
    const targets = ['m1', 'm2', 'm3'];
    const m1 = { clusterName: 'm1', applied: true, health: 'Healthy', status: { replicas: 2, readyReplicas: 2 } };
    const m2 = { clusterName: 'm2', applied: true, status: { replicas: 1, pendingReplicas: 1 } };
    const m3 = { clusterName: 'm3', applied: false, removed: true };
    const before = workloadStatusReducer(
      undefined,
      at(t, 'WorkloadStatusReported', { clusterName: 'm3', applied: true, targetClusters: targets }),
    );
    const oneByOne = [m2, m1, m3].reduce(
      (s, r) => workloadStatusReducer(s, at(t, 'WorkloadStatusReported', { ...r, targetClusters: targets })),
      before,
    );
    const together = workloadStatusReducer(
      before,
      at(t, 'WorkloadStatusReported', { reports: [m2, m1, m3], targetClusters: targets }),
    );
    expect(together).toEqual(oneByOne);
    expect((together.aggregatedStatus as Array<{ clusterName: string }>).map((i) => i.clusterName)).toEqual([
      'm1',
      'm2',
    ]);
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

describe("FullyApplied (Karmada's binding controller)", () => {
  const applied = (clusterName: string, ok = true) => ({ clusterName, applied: ok });
  it.each([
    ['every target applied', ['m1', 'm2'], [applied('m1'), applied('m2')], 'True'],
    ['one target not applied', ['m1', 'm2'], [applied('m1'), applied('m2', false)], 'False'],
    ['a target not reported yet', ['m1', 'm2'], [applied('m1')], 'False'],
    ['a report from a cluster no longer targeted', ['m1'], [applied('m1'), applied('m2')], 'False'],
    ['as many reports as targets, but from another cluster', ['m1', 'm3'], [applied('m1'), applied('m2')], 'False'],
    ['nothing scheduled', [], [], 'False'],
  ])('%s', (_case, targets, items, status) => {
    const c = fullyAppliedCondition(targets, items);
    expect(c.status).toBe(status);
    expect(c).toEqual(
      status === 'True'
        ? {
            type: 'FullyApplied',
            status,
            reason: 'FullyAppliedSuccess',
            message: 'All works have been successfully applied',
          }
        : {
            type: 'FullyApplied',
            status,
            reason: 'FullyAppliedFailed',
            message: 'Failed to apply all works, see status.aggregatedStatus for details',
          },
    );
  });

  it('follows the reports: False until every target cluster reported applied, then True; False again on a new target', () => {
    const report = (iso: string, clusterName: string, targetClusters: string[]) =>
      at(iso, 'WorkloadStatusReported', { clusterName, applied: true, health: 'Healthy', targetClusters });
    const fully = (s: Record<string, unknown>) =>
      (s.conditions as Array<{ type: string; status: string; lastTransitionTime: string }>).find(
        (c) => c.type === 'FullyApplied',
      );
    const s1 = workloadStatusReducer(undefined, report('2026-01-01T00:00:00Z', 'm1', ['m1', 'm2']));
    expect(fully(s1)).toMatchObject({ status: 'False', lastTransitionTime: '2026-01-01T00:00:00.000Z' });
    const s2 = workloadStatusReducer(s1, report('2026-01-01T00:00:05Z', 'm2', ['m1', 'm2']));
    expect(fully(s2)).toMatchObject({ status: 'True', lastTransitionTime: '2026-01-01T00:00:05.000Z' });
    const s3 = workloadStatusReducer(s2, report('2026-01-01T00:00:09Z', 'm1', ['m1', 'm2', 'm3']));
    expect(fully(s3)).toMatchObject({ status: 'False', reason: 'FullyAppliedFailed' });
  });

  it('leaves the condition alone for a report without target clusters (an agent from before the field)', () => {
    const s = workloadStatusReducer(
      undefined,
      at('2026-01-01T00:00:00Z', 'WorkloadStatusReported', { clusterName: 'm1', applied: true }),
    );
    expect(s.conditions).toBeUndefined();
  });
});

describe('PodsScheduled (applied is not running)', () => {
  const item = (clusterName: string, pendingReplicas: number, replicas = 2) => ({
    clusterName,
    applied: true,
    status: { replicas, pendingReplicas },
  });
  it.each([
    ['no pod Pending', ['m1', 'm2'], [item('m1', 0), item('m2', 0)], 'True', 'NoPodsPending', /^No member cluster/],
    ['nothing reported yet', ['m1'], [], 'True', 'NoPodsPending', /^No member cluster/],
    [
      'Pending pods in two clusters',
      ['m1', 'm2', 'm3'],
      [item('m1', 2), item('m2', 0), item('m3', 1, 3)],
      'False',
      'PodsPending',
      /^Pods Pending, no node fits them \(cluster pending\/desired\): m1 2\/2, m3 1\/3$/,
    ],
    ['only from a cluster no longer targeted', ['m2'], [item('m1', 2), item('m2', 0)], 'True', 'NoPodsPending', /./],
  ])('%s', (_case, targets, items, status, reason, message) => {
    const c = podsScheduledCondition(targets, items);
    expect(c).toMatchObject({ type: 'PodsScheduled', status, reason });
    expect(c.message).toMatch(message);
  });

  it('is folded from the reports beside FullyApplied: applied True, PodsScheduled False while pods pend', () => {
    const s = workloadStatusReducer(
      undefined,
      at('2026-01-01T00:00:00Z', 'WorkloadStatusReported', {
        clusterName: 'm1',
        applied: true,
        health: 'Unhealthy',
        status: { replicas: 2, readyReplicas: 0, availableReplicas: 0, pendingReplicas: 2 },
        targetClusters: ['m1'],
      }),
    );
    const conditions = s.conditions as Array<{ type: string; status: string; reason: string }>;
    expect(conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['FullyApplied', 'True', 'FullyAppliedSuccess'],
      ['PodsScheduled', 'False', 'PodsPending'],
    ]);
  });
});
