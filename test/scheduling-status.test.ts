// The scheduler's decisions as the status writer folds them: what the next decision reads back must be what the
// scheduler decided last. Pure: the scheduler's decision functions and the status writer's reducer, no servers.
import { describe, expect, it } from 'vitest';
import { decisionEvent } from '@flotilla/affinity-scheduler';
import {
  appliedPlacement,
  APPLIED_PLACEMENT_ANNOTATION,
  decideBinding,
  observedAfter,
  statusAfter,
  type BindingDecision,
  type Cluster,
  type ObservedSchedule,
  type ResourceBinding,
  type ResourceBindingStatus,
  type TargetCluster,
} from '@flotilla/scheduling';
import { patchReducer, type Status } from '@flotilla/status-writer';

const now = new Date('2026-01-01T00:00:00Z');
const member = (name: string, ready = true): Cluster => ({
  metadata: { name },
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

// The multiple scheduling groups proposal's groups; Duplicated, so that every pass schedules.
const nginx = (clusters: TargetCluster[], generation: number, status: Status | undefined): ResourceBinding => ({
  apiVersion: 'work.karmada.io/v1alpha2',
  kind: 'ResourceBinding',
  metadata: { name: 'nginx-deployment', namespace: 'default', uid: 'u-1', generation },
  spec: {
    resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'nginx', uid: 't-1' },
    replicas: 2,
    clusters,
    placement: {
      clusterAffinities: [
        { affinityName: 'dc-shanghai', clusterNames: ['unavailable'] },
        { affinityName: 'dc-beijing', clusterNames: ['member1'] },
        { affinityName: 'dc-hongkong', clusterNames: ['member2'] },
      ],
      replicaScheduling: { replicaSchedulingType: 'Duplicated' },
    },
  },
  ...(status ? { status: status as ResourceBindingStatus } : {}),
});

/** One pass of the controller: decide, write the clusters (a new generation), announce, remember. */
function pass(b: ResourceBinding, clusters: Cluster[], memo: ObservedSchedule | undefined) {
  const d: BindingDecision = decideBinding(b, clusters, now, memo);
  const written =
    d.kind === 'Scheduled' && d.clusters
      ? {
          ...b,
          metadata: { ...b.metadata, generation: b.metadata.generation! + 1 },
          spec: { ...b.spec, clusters: d.clusters },
        }
      : b;
  const generation = written.metadata.generation!;
  const event = d.announce ? decisionEvent(b, d, generation, now) : undefined;
  return { binding: written, decision: d, event, memo: d.announce ? observedAfter(memo, d, generation) : memo };
}

describe('scheduling decisions folded into status', () => {
  it('a failure after a move does not write the older group back: the next attempt resumes from the group moved to', () => {
    // stored: dc-beijing (member1) at generation 2, folded
    const folded: Status = {
      schedulerObservingAffinityName: 'dc-beijing',
      lastScheduledTime: '2025-12-31T23:59:00Z',
      schedulerObservedGeneration: 2,
    };
    const memo: ObservedSchedule = {
      generation: 2,
      affinityName: 'dc-beijing',
      lastScheduledTime: '2025-12-31T23:59:00Z',
    };
    const start = nginx([{ name: 'member1', replicas: 2 }], 2, folded);

    // member1 fails: moved to dc-hongkong at generation 3; the status writer has not folded it yet
    const moved = pass(start, [member('member1', false), member('member2')], memo);
    expect(moved.decision.kind === 'Scheduled' && moved.decision.result.ok && moved.decision.result.affinityName).toBe(
      'dc-hongkong',
    );
    expect(moved.binding.metadata.generation).toBe(3);

    // then member2 fails too: every group from dc-hongkong on fails (the status the scheduler reads still says dc-beijing)
    const failed = pass(moved.binding, [member('member1', false), member('member2', false)], moved.memo);
    expect(failed.decision.kind === 'Scheduled' && failed.decision.result.ok).toBe(false);

    // the status writer folds both, in order
    let status = patchReducer(folded, moved.event!);
    status = patchReducer(status, failed.event!);
    expect(status.schedulerObservingAffinityName).toBe('dc-hongkong');
    expect(status.schedulerObservedGeneration).toBe(3);

    // both recover: the next attempt resumes from dc-hongkong, with the scheduler's memory and without it (a standby)
    const next = { ...failed.binding, status: status as ResourceBindingStatus };
    for (const m of [failed.memo, undefined]) {
      const again = decideBinding(next, [member('member1'), member('member2')], now, m);
      expect(again.kind === 'Scheduled' && again.result.ok && again.result.affinityName).toBe('dc-hongkong');
      expect(again.kind === 'Scheduled' && again.clusters).toBeFalsy();
    }
  });

  it('a success with a single clusterAffinity removes an observed group left from a former clusterAffinities placement', () => {
    const stale: Status = { schedulerObservingAffinityName: 'dc-beijing', schedulerObservedGeneration: 1 };
    const b = nginx([], 2, stale);
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
    const { event } = pass(single, [member('member1')], undefined);
    const status = patchReducer(stale, event!);
    expect('schedulerObservingAffinityName' in status).toBe(false);
    expect(status.schedulerObservedGeneration).toBe(3);
  });
});

// what-if folds a decision with statusAfter; the service publishes decisionEvent and the status writer folds it with
// patchReducer. Both must give the same status, or what-if would print a status the service never writes.
describe("what-if's fold of a decision and the status writer's agree", () => {
  const scheduledTrue = {
    type: 'Scheduled',
    status: 'True',
    reason: 'Success',
    lastTransitionTime: '2025-12-31T00:00:00Z',
  } as const;
  const applied = { type: 'FullyApplied', status: 'True', reason: 'FullyAppliedSuccess' } as const;
  const divided = (() => {
    const b = nginx(
      [
        { name: 'member1', replicas: 1 },
        { name: 'member2', replicas: 1 },
      ],
      4,
      { schedulerObservedGeneration: 3, conditions: [applied, scheduledTrue] },
    );
    const placement = {
      clusterAffinity: { clusterNames: ['member1', 'member2'] },
      replicaScheduling: { replicaSchedulingType: 'Divided' },
    };
    return {
      ...b,
      metadata: { ...b.metadata, annotations: { [APPLIED_PLACEMENT_ANNOTATION]: appliedPlacement(placement) } },
      spec: { ...b.spec, placement },
    };
  })();
  const single = nginx([], 2, { schedulerObservingAffinityName: 'dc-beijing', conditions: [scheduledTrue] });
  it.each([
    {
      case: 'a first success',
      binding: nginx([], 1, undefined),
      clusters: [member('member1'), member('member2')],
      outcome: 'scheduled',
    },
    {
      case: 'a move to another group, other conditions kept',
      binding: nginx([{ name: 'member1', replicas: 2 }], 2, {
        schedulerObservingAffinityName: 'dc-beijing',
        schedulerObservedGeneration: 2,
        conditions: [applied, scheduledTrue],
      }),
      clusters: [member('member1', false), member('member2')],
      outcome: 'scheduled',
    },
    {
      case: 'a failure after a success (the condition flips)',
      binding: nginx([{ name: 'member2', replicas: 2 }], 3, {
        schedulerObservingAffinityName: 'dc-hongkong',
        conditions: [scheduledTrue],
      }),
      clusters: [member('member1', false), member('member2', false)],
      outcome: 'failed',
    },
    {
      case: 'a single clusterAffinity removing a stale group (null)',
      binding: { ...single, spec: { ...single.spec, placement: { clusterAffinity: { clusterNames: ['member1'] } } } },
      clusters: [member('member1')],
      outcome: 'scheduled',
    },
    {
      case: 'a kept assignment at a new generation',
      binding: divided,
      clusters: [member('member1'), member('member2')],
      outcome: 'kept',
    },
  ])('$case', ({ binding, clusters, outcome }) => {
    const d = decideBinding(binding, clusters, now);
    expect([d.kind === 'Kept' ? 'kept' : d.result.ok ? 'scheduled' : 'failed', d.announce]).toEqual([outcome, true]);
    const generation = binding.metadata.generation! + (d.kind === 'Scheduled' && d.clusters ? 1 : 0);
    const folded = patchReducer(binding.status as Status | undefined, decisionEvent(binding, d, generation, now));
    expect(statusAfter(d, binding.status, generation, now)).toEqual(folded);
  });
});
