import { describe, expect, it } from 'vitest';
import {
  decideBinding,
  observedAfter,
  resultWrite,
  statusPatchFor,
  type Cluster,
  type ObservedSchedule,
  type ResourceBinding,
  type TargetCluster,
} from '@flotilla/scheduling';
import { decisionEvent } from './decision-event.js';

const now = new Date('2026-01-01T00:00:00Z');
const members: Cluster[] = ['m1', 'm2'].map((name) => ({
  metadata: { name },
  status: { conditions: [{ type: 'Ready', status: 'True' }] },
}));
/** Four replicas over m1 and m2 by equal static weights: a Divided binding, kept when nothing asks to schedule it. */
const web = (clusters: TargetCluster[] = [], generation = 1): ResourceBinding => ({
  apiVersion: 'work.karmada.io/v1alpha2',
  kind: 'ResourceBinding',
  metadata: { name: 'web-deployment', namespace: 'default', uid: 'u-1', generation },
  spec: {
    resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' },
    replicas: 4,
    clusters,
    placement: {
      replicaScheduling: {
        replicaSchedulingType: 'Divided',
        replicaDivisionPreference: 'Weighted',
        weightPreference: { staticWeightList: [{ targetCluster: { clusterNames: ['m1', 'm2'] }, weight: 1 }] },
      },
    },
  },
});
const dataOf = (e: ReturnType<typeof decisionEvent>) =>
  e.data as { statusPatch: Record<string, unknown>; kubeEvent?: { type: string; reason: string }; kept?: boolean };

describe('decisionEvent', () => {
  it('announces a success as BindingScheduled with a Normal event and the decision status patch', () => {
    const b = web();
    const d = decideBinding(b, members, now);
    const e = decisionEvent(b, d, 2, now);
    expect(e.type).toBe('io.flotilla.BindingScheduled');
    expect(dataOf(e).kubeEvent).toMatchObject({ type: 'Normal', reason: 'ScheduleBindingSucceed' });
    expect(dataOf(e).statusPatch).toEqual(statusPatchFor(d, b.status, 2, now));
    // describe tells this binding's decisions from those of an earlier binding of the same name by it
    expect((e.data as { bindingUid?: string }).bindingUid).toBe('u-1');
  });

  it('carries which overflow tier each cluster came from when the term has overflowAffinities', () => {
    const withRoom = (name: string, pods: number): Cluster => ({
      metadata: { name },
      status: { conditions: [{ type: 'Ready', status: 'True' }], resourceSummary: { allocatable: { pods } } },
    });
    const b: ResourceBinding = {
      ...web(),
      spec: {
        ...web().spec,
        placement: {
          clusterAffinities: [
            {
              affinityName: 'on-prem',
              clusterNames: ['m1'],
              overflowAffinities: [{ affinityName: 'public-cloud', clusterNames: ['m2'] }],
            },
          ],
          replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Aggregated' },
        },
      },
    };
    const e = decisionEvent(b, decideBinding(b, [withRoom('m1', 3), withRoom('m2', 10)], now), 2, now);
    expect(e.data).toMatchObject({
      clusters: [
        { name: 'm1', replicas: 3 },
        { name: 'm2', replicas: 1 },
      ],
      affinityName: 'on-prem',
      tiers: { m1: 'on-prem', m2: 'public-cloud' },
    });
  });

  it('announces a failure as BindingScheduleFailed with a Warning and a False Scheduled condition', () => {
    const b = web([{ name: 'm1', replicas: 4 }], 3);
    const e = decisionEvent(b, decideBinding(b, [], now), 3, now);
    expect(e.type).toBe('io.flotilla.BindingScheduleFailed');
    expect(dataOf(e).kubeEvent).toMatchObject({ type: 'Warning', reason: 'ScheduleBindingFailed' });
    expect((dataOf(e).statusPatch.conditions as Array<{ status: string }>)[0]!.status).toBe('False');
  });

  it('derives the event id from uid, generation and result, so a repeated decision is de-duplicated', () => {
    const b = web();
    const d1 = decideBinding(b, members, now);
    const d2 = decideBinding(b, members, new Date(now.getTime() + 5000));
    expect(decisionEvent(b, d1, 2, now).id).toBe(decisionEvent(b, d2, 2, now).id);
    expect(decisionEvent(b, d1, 3, now).id).not.toBe(decisionEvent(b, d1, 2, now).id);
  });

  it('gives a recovery to the same clusters at one generation an id of its own (success, failure, success, failure)', () => {
    // Duplicated on m1: scheduled whenever it is re-queued, failing while m1 is gone.
    const dup: ResourceBinding = {
      ...web([{ name: 'm1', replicas: 4 }], 2),
      spec: {
        ...web().spec,
        clusters: [{ name: 'm1', replicas: 4 }],
        placement: { clusterAffinity: { clusterNames: ['m1'] } },
      },
    };
    const ids: string[] = [];
    let memory: ObservedSchedule | undefined;
    [members, [], members, []].forEach((clusters, i) => {
      const at = new Date(now.getTime() + i * 60_000);
      const d = decideBinding(dup, clusters, at, memory);
      expect(d.announce).toBe(true);
      ids.push(decisionEvent(dup, d, 2, at).id);
      memory = observedAfter(memory, d, 2);
    });
    expect(new Set(ids).size).toBe(4);
    // The same decision taken again from the same knowledge (a standby repeating it) keeps its id.
    const again = decideBinding(dup, members, new Date(now.getTime() + 5000));
    expect(decisionEvent(dup, again, 2, now).id).toBe(ids[0]);
  });

  it('confirms a kept assignment under the id of the decision that produced it, without a Kubernetes event', () => {
    // the leader schedules and writes (generation 1 → 2), then dies before announcing
    const first = decideBinding(web(), members, now);
    const written = resultWrite(first)!(web([], 2));
    // the standby, with no memory and no folded status, confirms what is stored: the same event id
    const confirm = decideBinding(written, members, now);
    expect(confirm).toMatchObject({ kind: 'Kept', announce: true, recovered: false });
    const e = decisionEvent(written, confirm, 2, now);
    expect(e.id).toBe(decisionEvent(web(), first, 2, now).id);
    expect(dataOf(e)).toMatchObject({
      kept: true,
      clusters: [
        { name: 'm1', replicas: 2 },
        { name: 'm2', replicas: 2 },
      ],
    });
    expect(dataOf(e).kubeEvent).toBeUndefined();
  });

  it('a kept success after a failure is news: ScheduleBindingSucceed', () => {
    const b = resultWrite(decideBinding(web(), members, now))!(web([], 2));
    const d = decideBinding(b, members, now, { generation: 2, failureMessage: 'no room' });
    expect(d).toMatchObject({ kind: 'Kept', recovered: true });
    expect(dataOf(decisionEvent(b, d, 2, now)).kubeEvent?.reason).toBe('ScheduleBindingSucceed');
  });
});
