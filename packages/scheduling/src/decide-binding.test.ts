import { describe, expect, it } from 'vitest';
import {
  decideBinding,
  observedAfter,
  resultWrite,
  revisitAfterMs,
  statusAfter,
  statusBasis,
  statusPatchFor,
  type BindingDecision,
  type ObservedSchedule,
  type ScheduledDecision,
} from './decide-binding.js';
import { APPLIED_PLACEMENT_ANNOTATION } from './reschedule.js';
import type { Cluster, Placement, ResourceBinding, ResourceBindingStatus, TargetCluster } from './types.js';

const now = new Date('2026-01-01T00:00:00Z');
const cluster = (name: string, ready = true): Cluster => ({
  metadata: { name },
  // A not-ready cluster past the grace period carries the taint manager's NoExecute taint.
  ...(ready
    ? {}
    : {
        spec: {
          taints: [{ key: 'cluster.karmada.io/not-ready', effect: 'NoExecute', timeAdded: '2025-12-31T23:00:00Z' }],
        },
      }),
  status: {
    conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
    resourceSummary: { allocatable: { cpu: '8', memory: '32Gi', pods: '110' } },
  },
});
const groups = [
  { affinityName: 'dc-beijing', clusterNames: ['member1'] },
  { affinityName: 'dc-hongkong', clusterNames: ['member2'] },
];
const binding = (
  clusters: Array<{ name: string; replicas: number }>,
  generation: number,
  status?: ResourceBinding['status'],
): ResourceBinding => ({
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

const scheduled = (d: BindingDecision): ScheduledDecision => {
  if (d.kind !== 'Scheduled') throw new Error('expected the binding to be scheduled');
  return d;
};

describe('decideBinding', () => {
  it('writes and announces a first placement', () => {
    const d = scheduled(decideBinding(binding([], 1), [cluster('member1'), cluster('member2')], now));
    expect(d.clusters).toEqual([{ name: 'member1', replicas: 2 }]);
    expect(d.announce).toBe(true);
  });

  it('does nothing when the stored placement and generation are what it would decide', () => {
    const status = {
      schedulerObservingAffinityName: 'dc-beijing',
      lastScheduledTime: '2026-01-01T00:00:00Z',
      schedulerObservedGeneration: 2,
    };
    const d = scheduled(
      decideBinding(
        binding([{ name: 'member1', replicas: 2 }], 2, status),
        [cluster('member1'), cluster('member2')],
        now,
        { generation: 2, affinityName: 'dc-beijing', lastScheduledTime: '2026-01-01T00:00:00Z' },
      ),
    );
    expect(d.clusters).toBeUndefined();
    expect(d.announce).toBe(false);
  });

  it('resumes from its own newer decision before the status writer has folded it, even within the same second', () => {
    // status still says dc-beijing (generation 2); the scheduler already failed over to dc-hongkong (generation 3)
    const status = {
      schedulerObservingAffinityName: 'dc-beijing',
      lastScheduledTime: '2026-01-01T00:00:00Z',
      schedulerObservedGeneration: 2,
    };
    const d = scheduled(
      decideBinding(
        binding([{ name: 'member2', replicas: 2 }], 3, status),
        [cluster('member1'), cluster('member2')],
        now,
        {
          generation: 3,
          affinityName: 'dc-hongkong',
          lastScheduledTime: '2026-01-01T00:00:00Z',
        },
      ),
    );
    expect(d.clusters).toBeUndefined();
    expect(d.result.ok && d.result.affinityName).toBe('dc-hongkong');
  });

  it('keeps the placement and announces once when every group fails (both clusters tainted)', () => {
    const b = binding([{ name: 'member2', replicas: 2 }], 3);
    const memo = { generation: 3, affinityName: 'dc-hongkong', lastScheduledTime: '2026-01-01T00:00:00Z' };
    const d = scheduled(decideBinding(b, [cluster('member1', false), cluster('member2', false)], now, memo));
    expect(d.result.ok).toBe(false);
    expect(d.clusters).toBeUndefined();
    expect(d.announce).toBe(true);
    expect((statusPatchFor(d, b.status, 3, now).conditions as Array<{ status: string }>)[0]!.status).toBe('False');
    // the controller remembers the failure next to the last success
    const again = decideBinding(b, [cluster('member1', false), cluster('member2', false)], now, {
      ...memo,
      failureMessage: d.result.ok ? '' : d.result.message,
    });
    expect(again.announce).toBe(false);
  });
});

// Divided workloads and cluster events: only Karmada's reasons schedule them again (placement, replicas,
// reschedule request, eviction); Duplicated ones follow every change.
describe('decideBinding: when a binding is scheduled again', () => {
  const at = (iso: string) => new Date(iso);
  const node = (
    name: string,
    opts: { labels?: Record<string, string>; taintedAt?: string; cpu?: string } = {},
  ): Cluster => ({
    metadata: { name, labels: opts.labels ?? { pool: 'a' } },
    spec: opts.taintedAt
      ? { taints: [{ key: 'cluster.karmada.io/not-ready', effect: 'NoExecute', timeAdded: opts.taintedAt }] }
      : {},
    status: {
      conditions: [{ type: 'Ready', status: opts.taintedAt ? 'False' : 'True' }],
      resourceSummary: { allocatable: { cpu: opts.cpu ?? '8', memory: '32Gi', pods: '110' } },
    },
  });
  const divided = (weightPreference: object, pref = 'Weighted'): Placement => ({
    clusterAffinity: { labelSelector: { matchLabels: { pool: 'a' } } },
    replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: pref, weightPreference },
  });
  const equalStatic = divided({ staticWeightList: [{ targetCluster: { clusterNames: ['m1', 'm2'] }, weight: 1 }] });
  const work = (placement: Placement, clusters: TargetCluster[], generation = 1): ResourceBinding => ({
    apiVersion: 'work.karmada.io/v1alpha2',
    kind: 'ResourceBinding',
    metadata: { name: 'web-deployment', namespace: 'default', uid: 'u-2', generation },
    spec: {
      resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web', uid: 't-2' },
      replicas: 4,
      replicaRequirements: { resourceRequest: { cpu: '500m' } },
      placement,
      clusters,
    },
  });
  /** What the controller does with a decision: write the result (a new generation when spec.clusters change) and remember it. */
  function run(
    b: ResourceBinding,
    clusters: Cluster[],
    when: Date,
    memo?: ObservedSchedule,
  ): { binding: ResourceBinding; decision: BindingDecision; memo?: ObservedSchedule } {
    const d = decideBinding(b, clusters, when, memo);
    const written = resultWrite(d)?.(b) ?? b;
    const next = {
      ...written,
      metadata: {
        ...written.metadata,
        generation: (b.metadata.generation ?? 0) + (d.kind === 'Scheduled' && d.clusters ? 1 : 0),
      },
    };
    return {
      binding: next,
      decision: d,
      memo: d.announce ? observedAfter(memo, d, next.metadata.generation ?? 0) : memo,
    };
  }
  /** A binding already scheduled under `placement` at `clusters`. */
  const placed = (placement: Placement, clusters: TargetCluster[]): ResourceBinding => {
    const b = work(placement, clusters, 2);
    return {
      ...b,
      metadata: { ...b.metadata, annotations: { [APPLIED_PLACEMENT_ANNOTATION]: JSON.stringify(placement) } },
    };
  };

  it('static weights: an evicted cluster gives its replicas up, and does not take them back when it recovers', () => {
    const t0 = at('2026-01-01T00:00:00Z');
    let s = run(work(equalStatic, []), [node('m1'), node('m2')], t0);
    expect(s.binding.spec.clusters).toEqual([
      { name: 'm1', replicas: 2 },
      { name: 'm2', replicas: 2 },
    ]);

    // m2 turns NotReady and the taint manager taints it NoExecute: evicted, all 4 on m1
    s = run(
      s.binding,
      [node('m1'), node('m2', { taintedAt: '2026-01-01T00:01:00Z' })],
      at('2026-01-01T00:01:01Z'),
      s.memo,
    );
    expect(scheduled(s.decision).trigger).toBe('ClusterEvicted');
    expect(s.binding.spec.clusters).toEqual([{ name: 'm1', replicas: 4 }]);

    // m2 recovers: nothing asks for scheduling, m1 keeps all 4 (pulling back is the rebalancer's job)
    s = run(s.binding, [node('m1'), node('m2')], at('2026-01-01T00:02:00Z'), s.memo);
    expect(s.decision.kind).toBe('Kept');
    expect(s.decision.announce).toBe(false);
    expect(s.binding.spec.clusters).toEqual([{ name: 'm1', replicas: 4 }]);
  });

  it.each([
    { strategy: 'dynamic weight', placement: divided({ dynamicWeight: 'AvailableReplicas' }) },
    { strategy: 'Aggregated', placement: divided({}, 'Aggregated') },
    { strategy: 'static weight', placement: equalStatic },
  ])('$strategy: a cluster that stops matching the affinity does not move a Divided workload', ({ placement }) => {
    const b = placed(placement, [
      { name: 'm1', replicas: 2 },
      { name: 'm2', replicas: 2 },
    ]);
    const d = decideBinding(b, [node('m1'), node('m2', { labels: { pool: 'b' } }), node('m3', { cpu: '64' })], now);
    expect(d.kind).toBe('Kept');
  });

  it('Duplicated still follows a cluster that stops matching', () => {
    const dup: Placement = {
      clusterAffinity: { labelSelector: { matchLabels: { pool: 'a' } } },
      replicaScheduling: { replicaSchedulingType: 'Duplicated' },
    };
    const b = placed(dup, [
      { name: 'm1', replicas: 4 },
      { name: 'm2', replicas: 4 },
    ]);
    const d = scheduled(decideBinding(b, [node('m1'), node('m2', { labels: { pool: 'b' } })], now));
    expect(d.trigger).toBe('AlwaysScheduled');
    expect(d.clusters).toEqual([{ name: 'm1', replicas: 4 }]);
  });

  it('a placement change is scheduled and recorded as applied; the record alone is written when the result stays', () => {
    const b = placed(equalStatic, [
      { name: 'm1', replicas: 2 },
      { name: 'm2', replicas: 2 },
    ]);
    const tolerant = { ...equalStatic, clusterTolerations: [{ key: 'dedicated', operator: 'Exists' }] };
    const d = scheduled(
      decideBinding({ ...b, spec: { ...b.spec, placement: tolerant } }, [node('m1'), node('m2')], now),
    );
    expect(d.trigger).toBe('PlacementChanged');
    expect(d.clusters).toBeUndefined();
    expect(JSON.parse(d.appliedPlacement!)).toEqual(tolerant);
  });

  it('a toleration with seconds asks to be looked at again when they run out', () => {
    const tolerating = {
      ...equalStatic,
      clusterTolerations: [
        { key: 'cluster.karmada.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
    };
    const b = placed(tolerating, [
      { name: 'm1', replicas: 2 },
      { name: 'm2', replicas: 2 },
    ]);
    const clusters = [node('m1'), node('m2', { taintedAt: '2026-01-01T00:00:00Z' })];
    const before = decideBinding(b, clusters, at('2026-01-01T00:01:00Z'));
    expect(before.kind).toBe('Kept');
    expect(before.recheckAfterMs).toBe(240_000);
    expect(revisitAfterMs(before)).toBe(240_050);
    const after = scheduled(decideBinding(b, clusters, at('2026-01-01T00:05:00Z')));
    expect(after.clusters).toEqual([{ name: 'm1', replicas: 4 }]);
    expect(after.recheckAfterMs).toBeUndefined();
    expect(revisitAfterMs(after)).toBeUndefined();
  });

  it('a kept assignment at a new generation is confirmed once', () => {
    // the leader schedules and writes (generation 1 → 2), then dies before announcing
    const first = run(work(equalStatic, []), [node('m1'), node('m2')], now);
    expect(first.binding.metadata.annotations?.[APPLIED_PLACEMENT_ANNOTATION]).toBe(JSON.stringify(equalStatic));
    // the standby, with no memory and no folded status, confirms what is stored
    const confirm = decideBinding(first.binding, [node('m1'), node('m2')], now);
    expect(confirm).toMatchObject({
      kind: 'Kept',
      announce: true,
      recovered: false,
      kept: [
        { name: 'm1', replicas: 2 },
        { name: 'm2', replicas: 2 },
      ],
    });
    expect(statusPatchFor(confirm, first.binding.status, 2, now)).toMatchObject({
      schedulerObservedGeneration: 2,
      conditions: [{ type: 'Scheduled', status: 'True' }],
    });
    // once known (in memory or folded), nothing more
    expect(
      decideBinding(first.binding, [node('m1'), node('m2')], now, observedAfter(undefined, confirm, 2)).announce,
    ).toBe(false);
    const folded = {
      ...first.binding,
      status: { schedulerObservedGeneration: 2, conditions: [{ type: 'Scheduled', status: 'True' }] },
    };
    expect(decideBinding(folded, [node('m1'), node('m2')], now).announce).toBe(false);
  });

  it('a failure whose cause went away without a new schedule turns into a kept success', () => {
    const b = placed(equalStatic, [
      { name: 'm1', replicas: 2 },
      { name: 'm2', replicas: 2 },
    ]);
    const d = decideBinding(b, [node('m1'), node('m2')], now, { generation: 2, failureMessage: 'no room' });
    expect(d).toMatchObject({ kind: 'Kept', announce: true, recovered: true });
  });
});

describe('decision status patches', () => {
  it('a failure carries only the Scheduled condition and the generation, not a copy of the stored status', () => {
    const stored = {
      schedulerObservingAffinityName: 'dc-beijing',
      lastScheduledTime: '2026-01-01T00:00:00Z',
      schedulerObservedGeneration: 2,
    };
    const b = binding([{ name: 'member2', replicas: 2 }], 3, stored);
    const d = decideBinding(b, [cluster('member1', false), cluster('member2', false)], now, {
      generation: 3,
      affinityName: 'dc-hongkong',
      lastScheduledTime: '2026-01-01T00:00:00Z',
    });
    const patch = statusPatchFor(d, b.status, 3, now);
    expect(Object.keys(patch).sort()).toEqual(['conditions', 'schedulerObservedGeneration']);
    expect(patch.schedulerObservedGeneration).toBe(3);
  });

  it('a success with a single clusterAffinity removes a stale observed group (null)', () => {
    const b = binding([], 1, { schedulerObservingAffinityName: 'dc-beijing' });
    const single: ResourceBinding = {
      ...b,
      spec: {
        ...b.spec,
        placement: {
          clusterAffinity: { clusterNames: ['member1'] },
          replicaScheduling: { replicaSchedulingType: 'Duplicated' },
        },
      },
    };
    const d = decideBinding(single, [cluster('member1')], now);
    expect(statusPatchFor(d, single.status, 2, now)).toMatchObject({
      schedulerObservingAffinityName: null,
      lastScheduledTime: '2026-01-01T00:00:00Z',
      schedulerObservedGeneration: 2,
    });
    expect('schedulerObservingAffinityName' in statusAfter(d, single.status, 2, now)).toBe(false);
  });
});

describe('statusBasis: what a decision reads of status, the same before and after its own announcement is folded', () => {
  it('is unchanged by the fold of the announced decision, and changed by a newer outcome', () => {
    const d = decideBinding(binding([], 1), [cluster('member1')], now);
    const observed = observedAfter(undefined, d, 1);
    const before = statusBasis(undefined, observed);
    expect(statusBasis(statusAfter(d, undefined, 1, now), observed)).toBe(before);
    // Members' reports are not read: a status with them decides alike.
    const reported = { ...statusAfter(d, undefined, 1, now), aggregatedStatus: [{ clusterName: 'member1' }] };
    expect(statusBasis(reported as ResourceBindingStatus, observed)).toBe(before);
    expect(statusBasis(undefined, undefined)).not.toBe(before);
    const failed = decideBinding(binding([], 2), [], now);
    expect(statusBasis(statusAfter(failed, statusAfter(d, undefined, 1, now), 2, now), observed)).not.toBe(before);
  });
});

describe('statusAfter: the status once the status writer has folded the decision', () => {
  it('a success sets Scheduled=True/Success, the group, lastScheduledTime and the generation, keeping other conditions', () => {
    const prev: ResourceBindingStatus = {
      conditions: [{ type: 'FullyApplied', status: 'True', reason: 'FullyAppliedSuccess' }],
    };
    const d = decideBinding(binding([], 1, prev), [cluster('member1')], now);
    expect(statusAfter(d, prev, 2, now)).toEqual({
      conditions: [
        { type: 'FullyApplied', status: 'True', reason: 'FullyAppliedSuccess' },
        {
          type: 'Scheduled',
          status: 'True',
          reason: 'Success',
          message: 'Binding has been scheduled successfully.',
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
      schedulerObservingAffinityName: 'dc-beijing',
      lastScheduledTime: '2026-01-01T00:00:00Z',
      schedulerObservedGeneration: 2,
    });
  });

  it('a failure keeps the observed group and lastScheduledTime and moves lastTransitionTime on a flip only', () => {
    const later = new Date('2026-01-01T01:00:00Z');
    const prev: ResourceBindingStatus = {
      schedulerObservingAffinityName: 'dc-hongkong',
      lastScheduledTime: '2026-01-01T00:00:00Z',
      conditions: [
        { type: 'Scheduled', status: 'True', reason: 'Success', lastTransitionTime: '2026-01-01T00:00:00Z' },
      ],
    };
    const d = decideBinding(binding([{ name: 'member2', replicas: 2 }], 3, prev), [], later);
    const s1 = statusAfter(d, prev, 3, later);
    expect(s1).toMatchObject({
      schedulerObservingAffinityName: 'dc-hongkong',
      lastScheduledTime: '2026-01-01T00:00:00Z',
      schedulerObservedGeneration: 3,
    });
    expect(s1.conditions).toEqual([
      {
        type: 'Scheduled',
        status: 'False',
        reason: 'NoClusterFit',
        message: expect.stringContaining('previous assignment kept (member2:2)'),
        lastTransitionTime: '2026-01-01T01:00:00Z',
      },
    ]);
    const s2 = statusAfter(d, s1, 3, new Date('2026-01-01T02:00:00Z'));
    expect(s2.conditions![0]!.lastTransitionTime).toBe('2026-01-01T01:00:00Z');
  });
});
