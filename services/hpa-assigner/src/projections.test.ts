import { FederatedHpaAnnotations } from '@flotilla/api';
import { SharedValues, type CachedKind } from '@flotilla/store';
import { describe, expect, it } from 'vitest';
import { TargetIndex } from './member-caches.js';
import { bindingProjection, federatedHpaProjection } from './projections.js';

const { owner, feasibleClusters, memberLimits, assignmentBasis, optimisedAt, pinnedMins } = FederatedHpaAnnotations;

/** A stored binding as the informer decodes it (resourceVersion set), with what a pass never reads. */
function storedBinding(
  name: string,
  kind: string,
  annotations: Record<string, string>,
  clusters = [{ name: 'member-00', replicas: 2 }],
): CachedKind<'ResourceBinding'> {
  return {
    apiVersion: 'work.karmada.io/v1alpha2',
    kind: 'ResourceBinding',
    metadata: {
      name,
      namespace: 'shop',
      uid: `uid-${name}`,
      resourceVersion: '42',
      generation: 3,
      creationTimestamp: '2026-12-06T12:00:00Z',
      labels: { team: 'a' },
      annotations: { ...annotations, 'kubectl.kubernetes.io/last-applied-configuration': '{"huge":true}' },
    },
    spec: {
      resource: { apiVersion: 'apps/v1', kind, namespace: 'shop', name: 'web' },
      replicaRequirements: { resourceRequest: { cpu: '100m', memory: '128Mi' } },
      clusters,
      placement: { clusterAffinity: { clusterNames: ['member-00'] } },
    },
  } as CachedKind<'ResourceBinding'>;
}

function storedFhpa(name: string, target: string): CachedKind<'FederatedHPA'> {
  return {
    apiVersion: 'autoscaling.karmada.io/v1alpha1',
    kind: 'FederatedHPA',
    metadata: {
      name,
      namespace: 'shop',
      uid: `uid-${name}`,
      generation: 2,
      resourceVersion: '7',
      creationTimestamp: '2026-12-06T12:00:00Z',
      labels: { team: 'a' },
      annotations: { note: 'x' },
    },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target },
      minReplicas: 1,
      maxReplicas: 20,
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
      ],
      federatedHPAAssignment: {
        federatedHPAAssignmentType: 'StaticWeighted',
        clusterAutoscalingPreference: [
          { targetCluster: { labelSelector: { matchLabels: { tier: 't0' } } }, staticWeight: 2 },
        ],
      },
    },
  } as CachedKind<'FederatedHPA'>;
}

describe('bindingProjection: what a pass reads of a binding', () => {
  const cases: Array<{ what: string; stored: CachedKind<'ResourceBinding'>; kept: object }> = [
    {
      what: "a FederatedHPA's target: name, namespace, owner and feasible clusters, clusters and request",
      stored: storedBinding('web-deployment', 'Deployment', {
        [owner]: 'web',
        [feasibleClusters]: 'member-00,member-01',
      }),
      kept: {
        apiVersion: 'work.karmada.io/v1alpha2',
        kind: 'ResourceBinding',
        metadata: {
          name: 'web-deployment',
          namespace: 'shop',
          annotations: { [owner]: 'web', [feasibleClusters]: 'member-00,member-01' },
        },
        spec: {
          clusters: [{ name: 'member-00', replicas: 2 }],
          replicaRequirements: { resourceRequest: { cpu: '100m', memory: '128Mi' } },
        },
      },
    },
    {
      what: "a member HPA's binding: its owner, not its limits (the record is in status) nor its spec",
      stored: storedBinding('web-horizontalpodautoscaler', 'HorizontalPodAutoscaler', {
        [owner]: 'web',
        [memberLimits]: '{"member-00":{"minReplicas":1,"maxReplicas":10}}',
      }),
      kept: {
        apiVersion: 'work.karmada.io/v1alpha2',
        kind: 'ResourceBinding',
        metadata: { name: 'web-horizontalpodautoscaler', namespace: 'shop', annotations: { [owner]: 'web' } },
        spec: {},
      },
    },
    {
      what: 'a member HPA binding an earlier hpa-assigner recorded on: the legacy record whole',
      stored: storedBinding('web-horizontalpodautoscaler', 'HorizontalPodAutoscaler', {
        [owner]: 'web',
        [memberLimits]: '{"member-00":{"minReplicas":1,"maxReplicas":10}}',
        [assignmentBasis]: '1|member-00:ready',
        [optimisedAt]: '2026-12-06T12:00:00Z',
        [pinnedMins]: '{}',
      }),
      kept: {
        apiVersion: 'work.karmada.io/v1alpha2',
        kind: 'ResourceBinding',
        metadata: {
          name: 'web-horizontalpodautoscaler',
          namespace: 'shop',
          annotations: {
            [owner]: 'web',
            [memberLimits]: '{"member-00":{"minReplicas":1,"maxReplicas":10}}',
            [assignmentBasis]: '1|member-00:ready',
            [optimisedAt]: '2026-12-06T12:00:00Z',
            [pinnedMins]: '{}',
          },
        },
        spec: {},
      },
    },
    {
      what: 'a binding no FederatedHPA marked: no annotations at all',
      stored: storedBinding('api-deployment', 'Deployment', {}),
      kept: {
        apiVersion: 'work.karmada.io/v1alpha2',
        kind: 'ResourceBinding',
        metadata: { name: 'api-deployment', namespace: 'shop' },
        spec: {
          clusters: [{ name: 'member-00', replicas: 2 }],
          replicaRequirements: { resourceRequest: { cpu: '100m', memory: '128Mi' } },
        },
      },
    },
  ];
  it.each(cases)('$what', ({ stored, kept }) => {
    expect(bindingProjection(stored)).toStrictEqual(kept);
  });

  it('bindings placed alike share one frozen clusters list', () => {
    const a = bindingProjection(storedBinding('a-deployment', 'Deployment', {}));
    const b = bindingProjection(storedBinding('b-deployment', 'Deployment', {}, [{ name: 'member-00', replicas: 2 }]));
    expect(b.spec.clusters).toBe(a.spec.clusters);
    expect(Object.isFrozen(a.spec.clusters![0])).toBe(true);
    const c = bindingProjection(storedBinding('c-deployment', 'Deployment', {}, [{ name: 'member-01', replicas: 2 }]));
    expect(c.spec.clusters).not.toBe(a.spec.clusters);
  });
});

describe('federatedHpaProjection: what the FederatedHPA and replica owners controllers read', () => {
  it('keeps kind, name, namespace, uid, generation and the spec; drops times, labels, annotations and resourceVersion', () => {
    expect(federatedHpaProjection(storedFhpa('web', 'web'))).toStrictEqual({
      apiVersion: 'autoscaling.karmada.io/v1alpha1',
      kind: 'FederatedHPA',
      metadata: { name: 'web', namespace: 'shop', uid: 'uid-web', generation: 2 },
      spec: storedFhpa('web', 'web').spec,
    });
  });

  it('FederatedHPAs of one policy share it, frozen; each keeps its own target', () => {
    const a = federatedHpaProjection(storedFhpa('a', 'a'));
    const b = federatedHpaProjection(storedFhpa('b', 'b'));
    expect(b.spec!.federatedHPAAssignment).toBe(a.spec!.federatedHPAAssignment);
    expect(b.spec!.metrics).toBe(a.spec!.metrics);
    expect(Object.isFrozen(a.spec!.federatedHPAAssignment!.clusterAutoscalingPreference)).toBe(true);
    expect([a.spec!.scaleTargetRef.name, b.spec!.scaleTargetRef.name]).toEqual(['a', 'b']);
  });
});

describe('SharedValues', () => {
  it('hands out the first of equal values, frozen, and starts over past its limit', () => {
    const shared = new SharedValues(2);
    const first = shared.share({ a: [1] });
    expect(shared.share({ a: [1] })).toBe(first);
    expect(Object.isFrozen(first.a)).toBe(true);
    shared.share({ b: 1 });
    shared.share({ c: 1 });
    expect(shared.size).toBe(1);
    expect(shared.share({ a: [1] })).not.toBe(first);
  });
});

describe('TargetIndex', () => {
  it('wakes the readers a binding has now: one, two, none once they read others or are gone', () => {
    const index = new TargetIndex();
    const readers = (name: string) => [...index.readersOf(`ResourceBinding.shop.${name}`)].sort();
    index.set('FederatedHPA.shop.a', 'shop', ['web-deployment', 'a-horizontalpodautoscaler']);
    index.set('FederatedHPA.shop.b', 'shop', ['web-deployment']);
    expect(readers('web-deployment')).toEqual(['FederatedHPA.shop.a', 'FederatedHPA.shop.b']);
    expect(readers('a-horizontalpodautoscaler')).toEqual(['FederatedHPA.shop.a']);
    index.set('FederatedHPA.shop.a', 'shop', ['api-deployment']);
    expect(readers('web-deployment')).toEqual(['FederatedHPA.shop.b']);
    expect(readers('a-horizontalpodautoscaler')).toEqual([]);
    expect(readers('api-deployment')).toEqual(['FederatedHPA.shop.a']);
    index.set('FederatedHPA.shop.b', 'shop', []);
    expect(readers('web-deployment')).toEqual([]);
  });
});
