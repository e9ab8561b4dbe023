import { FederatedHpaAnnotations } from '@flotilla/api';
import type { Cluster, ResourceBinding } from '@flotilla/scheduling';
import { describe, expect, it } from 'vitest';
import { federatedHpaHandOff, handOverDecision } from './federated-hpa-handoff.js';

const now = new Date('2026-01-01T00:10:00Z');
const cluster = (name: string, ready: boolean, taints: NonNullable<Cluster['spec']>['taints'] = []): Cluster => ({
  metadata: { name, labels: { name } },
  spec: { taints },
  status: {
    conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: '2026-01-01T00:00:00Z' }],
  },
});
const binding = (
  annotations: Record<string, string>,
  extra: Partial<ResourceBinding['spec']> = {},
): ResourceBinding => ({
  apiVersion: 'work.karmada.io/v1alpha2',
  kind: 'ResourceBinding',
  metadata: { name: 'shop-deployment', namespace: 'default', annotations },
  spec: { resource: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop' }, ...extra },
});
const owned = { [FederatedHpaAnnotations.owner]: 'shop' };
const fleet = [cluster('member1', true), cluster('member2', true), cluster('member3', false)];

describe('the affinity scheduler hands a FederatedHPA’s bindings to the hpa-assigner', () => {
  it('schedules a binding no FederatedHPA owns', () => {
    expect(federatedHpaHandOff(binding({}), fleet, now)).toEqual({ kind: 'Schedule' });
  });

  it('leaves the member HPA binding wholly to the hpa-assigner', () => {
    const b = binding(owned);
    b.spec.resource = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', name: 'shop' };
    expect(federatedHpaHandOff(b, fleet, now)).toEqual({ kind: 'LeaveAlone', owner: 'shop' });
  });

  it('filters an owned target binding’s clusters: placement affinity, readiness for new clusters', () => {
    const b = binding(owned, { placement: { clusterAffinity: { clusterNames: ['member1', 'member3'] } } });
    expect(federatedHpaHandOff(b, fleet, now)).toEqual({
      kind: 'FilterOnly',
      owner: 'shop',
      feasible: 'member1',
      changed: true,
      announce: true,
    });
    const all = binding(owned);
    expect(federatedHpaHandOff(all, fleet, now)).toMatchObject({ feasible: 'member1,member2' });
  });

  it('keeps a current cluster through a short NotReady blip but evicts it on an untolerated NoExecute taint', () => {
    const current = { clusters: [{ name: 'member3', replicas: 2 }] };
    expect(federatedHpaHandOff(binding(owned, current), fleet, now)).toMatchObject({
      feasible: 'member1,member2,member3',
    });
    const tainted = [
      fleet[0]!,
      fleet[1]!,
      cluster('member3', false, [{ key: 'cluster.karmada.io/not-ready', effect: 'NoExecute' }]),
    ];
    expect(federatedHpaHandOff(binding(owned, current), tainted, now)).toMatchObject({ feasible: 'member1,member2' });
  });

  it('writes nothing when the annotation already says it', () => {
    const b = binding({ ...owned, [FederatedHpaAnnotations.feasibleClusters]: 'member1,member2' });
    expect(federatedHpaHandOff(b, fleet, now)).toMatchObject({ changed: false });
  });

  const withScheduled = (status: 'True' | 'False', extra: Partial<ResourceBinding['spec']> = {}): ResourceBinding => ({
    ...binding(owned, extra),
    status: {
      lastScheduledTime: '2026-01-01T00:05:00Z',
      conditions: [
        { type: 'Scheduled', status, reason: 'x', message: 'x', lastTransitionTime: '2026-01-01T00:05:00Z' },
      ],
    },
  });
  it.each([
    // what the binding says, where it could go, whether the hand-over is announced
    ['no status (claimed before the scheduler got to it)', binding(owned), fleet, true],
    ['Scheduled=True', withScheduled('True'), fleet, undefined],
    ['Scheduled=False (failed before it was claimed)', withScheduled('False'), fleet, true],
    ['no status, and no cluster it may go to', binding(owned), [cluster('member3', false)], undefined],
  ])('announces the hand-over of a binding with %s: %s', (_what, b, clusters, announce) => {
    expect((federatedHpaHandOff(b, clusters, now) as { announce?: true }).announce).toBe(announce);
  });

  it('announces a hand-over as the clusters kept, recovered when the last schedule failed', () => {
    const current = { clusters: [{ name: 'member1', replicas: 2 }] };
    expect(handOverDecision(binding(owned, current))).toEqual({
      kind: 'Kept',
      kept: [{ name: 'member1', replicas: 2 }],
      recovered: false,
      announce: true,
      basis: '/ok',
    });
    expect(handOverDecision(withScheduled('False'))).toMatchObject({
      kept: [],
      recovered: true,
      basis: '2026-01-01T00:05:00Z/failed',
    });
  });
});
