import { describe, expect, it } from 'vitest';
import { estimateFreeReplicas, MAX_REPLICAS } from './estimate.js';
import { parseResourceRequest } from './request.js';
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

  // Karmada's maxAvailableReplicas with CustomizedClusterResourceModeling: the models answer once the cluster reports
  // allocatableModelings, bounded by the pod budget; the summary answers otherwise.
  const grades = (counts: Record<number, number>) =>
    Array.from({ length: 9 }, (_, grade) => ({ grade, count: counts[grade] ?? 0 }));
  it.each<{
    name: string;
    spec?: Cluster['spec'];
    summary: ResourceSummary;
    request: ResourceList;
    assumed?: Record<string, number>;
    want: number;
  }>([
    {
      name: 'two 4-cpu nodes (default models, grade 3 with 32Gi) hold no 5-cpu replica, though 8 cpu are free',
      summary: { allocatable: { pods: 220, cpu: 8, memory: '64Gi' }, allocatableModelings: grades({ 3: 2 }) },
      request: { cpu: '5' },
      want: 0,
    },
    {
      name: 'the same nodes hold 4 replicas of 1 cpu each by the grade-3 minimum of 4 cpu: 8',
      summary: { allocatable: { pods: 220, cpu: 8, memory: '64Gi' }, allocatableModelings: grades({ 3: 2 }) },
      request: { cpu: '1' },
      want: 8,
    },
    {
      name: 'a grade-2 node (2 cpu, 16Gi) holds 2 replicas of 1 cpu by its minimum',
      summary: { allocatable: { pods: 110, cpu: 3, memory: '20Gi' }, allocatableModelings: grades({ 2: 1 }) },
      request: { cpu: '1' },
      want: 2,
    },
    {
      name: 'the pod budget still bounds the models',
      summary: { allocatable: { pods: 3, cpu: 64, memory: '256Gi' }, allocatableModelings: grades({ 6: 1 }) },
      request: { cpu: '1' },
      want: 3,
    },
    {
      name: 'a resource the models do not name falls back to the summary',
      summary: { allocatable: { pods: 10, cpu: 8, 'nvidia.com/gpu': 4 }, allocatableModelings: grades({ 3: 1 }) },
      request: { 'nvidia.com/gpu': '1' },
      want: 4,
    },
    {
      name: "the cluster's own models",
      spec: {
        syncMode: 'Push',
        resourceModels: [
          { grade: 0, ranges: [{ name: 'cpu', min: '0', max: '6' }] },
          { grade: 1, ranges: [{ name: 'cpu', min: '6', max: '12' }] },
        ],
      },
      summary: {
        allocatable: { pods: 100, cpu: 20 },
        allocatableModelings: [
          { grade: 0, count: 1 },
          { grade: 1, count: 2 },
        ],
      },
      request: { cpu: '5' },
      want: 2,
    },
    {
      name: 'assumed usage (beyond Karmada) bounds the models through the summary',
      summary: { allocatable: { pods: 220, cpu: 8, memory: '64Gi' }, allocatableModelings: grades({ 3: 2 }) },
      request: { cpu: '1' },
      assumed: { cpu: 6000, pods: 6 },
      want: 2,
    },
  ])('$name', ({ spec, summary, request, assumed, want }) => {
    const c = {
      ...cluster(summary),
      ...(spec && { spec }),
      ...(assumed && { assumedUsage: new Map(Object.entries(assumed)) }),
    };
    expect(estimateFreeReplicas(c, parseResourceRequest(request), 10)).toBe(want);
  });

  it('answers from the summary alone when asked to (resourceModels: false)', () => {
    const c = cluster({ allocatable: { pods: 220, cpu: 8, memory: '64Gi' }, allocatableModelings: grades({ 3: 2 }) });
    const fiveCpu = parseResourceRequest({ cpu: '5' });
    expect(estimateFreeReplicas(c, fiveCpu, 10)).toBe(0);
    expect(estimateFreeReplicas(c, fiveCpu, 10, { resourceModels: false })).toBe(1);
  });

  it('rejects a malformed quantity', () => {
    expect(() => parseResourceRequest({ cpu: 'lots' })).toThrow(/invalid quantity "lots"/);
  });
});
