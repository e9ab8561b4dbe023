import { describe, expect, it } from 'vitest';
import { withDetected } from './detect-binding.js';
import { buildBinding } from './detection.js';
import { APPLIED_PLACEMENT_ANNOTATION } from './reschedule.js';
import type { PropagationPolicy, ResourceBinding, ResourceTemplate } from './types.js';

const deployment = (requests?: Record<string, string>, replicas?: number): ResourceTemplate => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', uid: 't-1' },
  spec: {
    ...(replicas !== undefined && { replicas }),
    template: { spec: { containers: [{ name: 'c', ...(requests && { resources: { requests } }) }] } },
  },
});
const configMap: ResourceTemplate = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'web', namespace: 'default', uid: 't-1' },
};
const pp: PropagationPolicy = {
  apiVersion: 'policy.karmada.io/v1alpha1',
  kind: 'PropagationPolicy',
  metadata: { name: 'web', namespace: 'default' },
  spec: {
    resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment' }],
    placement: { clusterAffinity: { clusterNames: ['m1'] } },
  },
};
const cpp: PropagationPolicy = {
  ...pp,
  kind: 'ClusterPropagationPolicy',
  metadata: { name: 'all' },
  spec: { ...pp.spec, placement: { clusterAffinity: { clusterNames: ['m2'] } } },
};

/** A stored binding as detection created it, then scheduled and touched by others. */
function stored(template: ResourceTemplate, policy: PropagationPolicy): ResourceBinding {
  const b = buildBinding(template, policy);
  return {
    ...b,
    metadata: {
      ...b.metadata,
      generation: 3,
      annotations: { ...b.metadata.annotations, [APPLIED_PLACEMENT_ANNOTATION]: '{}', team: 'web' },
    },
    spec: {
      ...b.spec,
      clusters: [{ name: 'm1', replicas: 3 }],
      rescheduleTriggeredAt: '2026-01-01T00:00:00Z',
      gracefulEvictionTasks: [{ fromCluster: 'm9' }],
    },
  } as ResourceBinding;
}
const othersFields = {
  clusters: [{ name: 'm1', replicas: 3 }],
  rescheduleTriggeredAt: '2026-01-01T00:00:00Z',
  gracefulEvictionTasks: [{ fromCluster: 'm9' }],
};

describe('withDetected', () => {
  it.each([
    { name: 'requests dropped', before: deployment({ cpu: '500m' }, 3), after: deployment(undefined, 3) },
    {
      name: 'requests changed',
      before: deployment({ cpu: '500m', memory: '1Gi' }, 3),
      after: deployment({ cpu: '1' }, 3),
    },
    { name: 'replicas scaled', before: deployment({ cpu: '500m' }, 3), after: deployment({ cpu: '500m' }, 5) },
    { name: 'a workload turned into a non-workload', before: deployment({ cpu: '500m' }, 3), after: configMap },
  ])('$name: the detected fields are what a fresh detection gives, the rest is kept', ({ before, after }) => {
    const fresh = buildBinding(after, pp);
    const merged = withDetected(stored(before, pp), fresh);
    expect(merged.spec).toEqual({ ...fresh.spec, ...othersFields });
  });

  it('a new claiming policy replaces the claim annotations of the old one and keeps the others', () => {
    const merged = withDetected(stored(deployment(undefined, 3), pp), buildBinding(deployment(undefined, 3), cpp));
    expect(merged.metadata.annotations).toEqual({
      'clusterpropagationpolicy.karmada.io/name': 'all',
      [APPLIED_PLACEMENT_ANNOTATION]: '{}',
      team: 'web',
    });
    expect((merged.spec as { placement: unknown }).placement).toEqual({ clusterAffinity: { clusterNames: ['m2'] } });
  });
});
