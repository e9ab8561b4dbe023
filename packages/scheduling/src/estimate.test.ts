import { describe, expect, it } from 'vitest';
import { estimateFreeReplicas, MAX_REPLICAS, parseResourceRequest } from './estimate.js';
import type { Cluster, ResourceList, ResourceSummary } from './types.js';

const cluster = (resourceSummary?: ResourceSummary): Cluster => ({
  metadata: { name: 'm1' },
  status: resourceSummary ? { resourceSummary } : {},
});

describe('estimateFreeReplicas', () => {
  it.each<{ name: string; summary: ResourceSummary; request: ResourceList | undefined; want: number }>([
    {
      name: 'the reference example: min(80 pods, 3000m/500m, 6Gi/1Gi)',
      summary: {
        allocatable: { pods: 100, cpu: '4', memory: '8Gi' },
        allocated: { pods: 20, cpu: '1', memory: '2Gi' },
      },
      request: { cpu: '500m', memory: '1Gi' },
      want: 6,
    },
    {
      name: 'no requests: the pod budget',
      summary: { allocatable: { pods: '110' }, allocated: { pods: 10 } },
      request: undefined,
      want: 100,
    },
    {
      name: 'allocating counts as used',
      summary: { allocatable: { pods: 10, cpu: 2 }, allocating: { cpu: '1500m' } },
      request: { cpu: '250m' },
      want: 2,
    },
    {
      name: 'pods exhausted',
      summary: { allocatable: { pods: 10, cpu: 8 }, allocated: { pods: 10 } },
      request: { cpu: '1' },
      want: 0,
    },
    { name: 'no pods reported', summary: { allocatable: { cpu: 8 } }, request: { cpu: '1' }, want: 0 },
    {
      name: 'requested resource not reported',
      summary: { allocatable: { pods: 10, cpu: 8 } },
      request: { 'nvidia.com/gpu': 1 },
      want: 0,
    },
    {
      name: 'resource over-committed',
      summary: { allocatable: { pods: 10, cpu: 2 }, allocated: { cpu: 3 } },
      request: { cpu: '100m' },
      want: 0,
    },
    {
      name: 'zero requests are ignored',
      summary: { allocatable: { pods: 5 } },
      request: { cpu: '0', memory: 0 },
      want: 5,
    },
    { name: 'cpu in millicores', summary: { allocatable: { pods: 100, cpu: '1' } }, request: { cpu: '300m' }, want: 3 },
  ])('$name', ({ summary, request, want }) => {
    expect(estimateFreeReplicas(cluster(summary), parseResourceRequest(request), 10)).toBe(want);
  });

  it('gives 0 without a resource summary', () => {
    expect(estimateFreeReplicas(cluster(), undefined, 3)).toBe(0);
  });

  it('treats a non-workload (0 desired) as unbounded', () => {
    expect(estimateFreeReplicas(cluster(), undefined, 0)).toBe(MAX_REPLICAS);
  });

  it('rejects a malformed quantity', () => {
    expect(() => parseResourceRequest({ cpu: 'lots' })).toThrow(/invalid quantity "lots"/);
  });
});
