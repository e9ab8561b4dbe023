import { describe, expect, it } from 'vitest';
import { AssignmentInputError } from './errors.js';
import { memberWithRoom } from './testdata/fleet.js';
import { whatIfFederatedHpa } from './what-if.js';

const now = new Date('2026-01-01T00:00:00Z');
const fhpa = (extra: Record<string, unknown> = {}) => ({
  apiVersion: 'autoscaling.karmada.io/v1alpha1',
  kind: 'FederatedHPA',
  metadata: { name: 'shop', namespace: 'default', generation: 1 },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop' },
    minReplicas: 2,
    maxReplicas: 10,
    federatedHPAAssignment: { federatedHPAAssignmentType: 'Duplicated' },
    ...extra,
  },
});
const cluster = (name: string, ready = true) => ({
  apiVersion: 'cluster.karmada.io/v1alpha1',
  kind: 'Cluster',
  ...memberWithRoom(name, 50, { ready }),
});
const binding = {
  apiVersion: 'work.karmada.io/v1alpha2',
  kind: 'ResourceBinding',
  metadata: { name: 'shop-deployment', namespace: 'default' },
  spec: {
    resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'shop' },
    clusters: [{ name: 'm1', replicas: 12 }],
  },
};

describe('what-if fhpa: the hpa-assigner’s first pass, offline', () => {
  it('Duplicated over the feasible clusters: each member HPA gets min/max, each workload is clamped into it', () => {
    const r = whatIfFederatedHpa([cluster('m1'), cluster('m2'), cluster('m3', false), binding, fhpa()], now);
    expect(r.assignments).toEqual([
      { cluster: 'm1', minReplicas: 2, maxReplicas: 10 },
      { cluster: 'm2', minReplicas: 2, maxReplicas: 10 },
    ]);
    expect(r.binding.spec.clusters).toEqual([
      { name: 'm1', replicas: 10 },
      { name: 'm2', replicas: 2 },
    ]);
    expect(r.binding.metadata.generation).toBe(2);
    expect(r.binding.metadata.annotations).toMatchObject({
      'autoscaling.flotilla.io/federated-hpa': 'shop',
      'autoscaling.flotilla.io/feasible-clusters': 'm1,m2',
    });
  });

  it('overflowAffinities: the feasible clusters follow the tiers of the term, so the FederatedHPA may scale into them', () => {
    const overflowBinding = {
      ...binding,
      spec: {
        ...binding.spec,
        replicas: 12,
        placement: {
          clusterAffinities: [
            {
              affinityName: 'on-prem',
              clusterNames: ['m1'],
              overflowAffinities: [{ affinityName: 'cloud', clusterNames: ['m2'] }],
            },
          ],
          replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Aggregated' },
        },
      },
    };
    const r = whatIfFederatedHpa([cluster('m1'), cluster('m2'), cluster('m3'), overflowBinding, fhpa()], now);
    expect(r.binding.metadata.annotations).toMatchObject({ 'autoscaling.flotilla.io/feasible-clusters': 'm1,m2' });
    expect(r.assignments.map((a) => a.cluster)).toEqual(['m1', 'm2']);
  });

  it.each([
    ['no FederatedHPA', [cluster('m1'), binding], 'objects: expected exactly one FederatedHPA, found 0'],
    [
      'no binding and nothing to make one',
      [cluster('m1'), fhpa()],
      'objects[1].spec.scaleTargetRef: no ResourceBinding default/shop-deployment',
    ],
    [
      'a shipped FederatedHPA',
      [binding, { ...fhpa(), spec: { ...fhpa().spec, federatedHPAAssignment: undefined } }],
      'objects[1].spec.federatedHPAAssignment',
    ],
  ])('refuses %s, naming the field', (_name, objects, message) => {
    expect(() => whatIfFederatedHpa(objects, now)).toThrow(AssignmentInputError);
    expect(() => whatIfFederatedHpa(objects, now)).toThrow(message);
  });
});
