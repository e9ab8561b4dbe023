import { DEFAULT_RESOURCE_MODELS } from '@flotilla/api';
import { describe, expect, it } from 'vitest';
import { fitWorkloads, resourceSummary, workloadReport, type PlacedWorkload } from './capacity.js';
import { unreachableWorkloadReport } from '../report-model.js';
import type { Resources } from '../resources.js';

const Gi = 2 ** 30;
const cap = (cpu: number, memGi: number, pods: number): Resources => ({
  cpuMilli: cpu * 1000,
  memoryBytes: memGi * Gi,
  pods,
});
const req = (cpuMilli: number, memGi: number): Resources => ({ cpuMilli, memoryBytes: memGi * Gi, pods: 0 });
const w = (name: string, replicas: number, request: Resources, namespace = 'default'): PlacedWorkload => ({
  binding: { kind: 'ResourceBinding', namespace, name },
  replicas,
  request,
});

describe('fitWorkloads', () => {
  it.each([
    {
      name: 'everything fits',
      capacity: cap(8, 32, 110),
      workloads: [w('web', 3, req(500, 1))],
      running: { web: [3, 0] },
    },
    {
      // Karmada's estimator example (reference §8): 4 cpu / 8Gi / 100 pods with 1 cpu / 2Gi / 2 pods allocated
      // has room for 6 pods of 500m / 1Gi; the simulator runs exactly those 6.
      name: 'the estimator example: cpu and memory both allow 6',
      capacity: cap(4, 8, 100),
      workloads: [w('a', 2, req(500, 1)), w('b', 10, req(500, 1))],
      running: { a: [2, 0], b: [6, 4] },
    },
    {
      name: 'cpu is the limit',
      capacity: cap(2, 64, 110),
      workloads: [w('web', 5, req(750, 1))],
      running: { web: [2, 3] },
    },
    {
      name: 'memory is the limit',
      capacity: cap(64, 4, 110),
      workloads: [w('web', 5, req(100, 3))],
      running: { web: [1, 4] },
    },
    {
      name: 'the pod count is the limit',
      capacity: cap(64, 64, 3),
      workloads: [w('web', 5, req(0, 0))],
      running: { web: [3, 2] },
    },
    {
      name: 'namespace/name order decides who runs, not input order',
      capacity: cap(2, 64, 110),
      workloads: [w('zeta', 2, req(1000, 0), 'a'), w('alpha', 2, req(1000, 0), 'b')],
      running: { zeta: [2, 0], alpha: [0, 2] },
    },
    {
      name: 'a later, smaller workload fills the room a bigger one could not use',
      capacity: cap(3, 64, 110),
      workloads: [w('a-big', 2, req(2000, 0)), w('b-small', 2, req(500, 0))],
      running: { 'a-big': [1, 1], 'b-small': [2, 0] },
    },
    {
      name: 'zero replicas',
      capacity: cap(1, 1, 1),
      workloads: [w('idle', 0, req(500, 1))],
      running: { idle: [0, 0] },
    },
  ])('$name', ({ capacity, workloads, running }) => {
    const fit = fitWorkloads(capacity, workloads);
    const got = Object.fromEntries(fit.workloads.map((f) => [f.binding.name, [f.running, f.pending]]));
    expect(got).toEqual(running);
  });

  it('accounts running pods as allocated and Pending pods as allocating, as Karmada does', () => {
    const fit = fitWorkloads(cap(4, 8, 100), [w('a', 2, req(500, 1)), w('b', 10, req(500, 1))]);
    expect(fit.allocated).toEqual({ cpuMilli: 4000, memoryBytes: 8 * Gi, pods: 8 });
    expect(fit.allocating).toEqual({ cpuMilli: 2000, memoryBytes: 4 * Gi, pods: 4 });
    expect(resourceSummary(cap(4, 8, 100), fit, DEFAULT_RESOURCE_MODELS)).toEqual({
      allocatable: { cpu: '4', memory: '8Gi', pods: '100' },
      allocated: { cpu: '4', memory: '8Gi', pods: '8' },
      allocating: { cpu: '2', memory: '4Gi', pods: '4' },
      // One node of the cluster's shape, full: grade 0.
      allocatableModelings: DEFAULT_RESOURCE_MODELS.map(({ grade }) => ({ grade, count: grade === 0 ? 1 : 0 })),
    });
  });

  it('an empty cluster reports zero allocated and allocating', () => {
    expect(resourceSummary(cap(8, 32, 110), fitWorkloads(cap(8, 32, 110), []), DEFAULT_RESOURCE_MODELS)).toEqual({
      allocatable: { cpu: '8', memory: '32Gi', pods: '110' },
      allocated: { cpu: '0', memory: '0', pods: '0' },
      allocating: { cpu: '0', memory: '0', pods: '0' },
      // 8 cpu reach grade 4, 32Gi only grade 3: the node is grade 3.
      allocatableModelings: DEFAULT_RESOURCE_MODELS.map(({ grade }) => ({ grade, count: grade === 3 ? 1 : 0 })),
    });
  });
});

describe('workload reports', () => {
  it.each([
    [{ replicas: 3, running: 3, pending: 0 }, 'Healthy'],
    [{ replicas: 0, running: 0, pending: 0 }, 'Healthy'],
    [{ replicas: 5, running: 2, pending: 3 }, 'Unhealthy'],
  ])('%j is %s', (f, health) => {
    const r = workloadReport({ binding: { kind: 'ResourceBinding', namespace: 'default', name: 'x' }, ...f });
    expect(r).toEqual({
      applied: true,
      health,
      status: {
        replicas: f.replicas,
        readyReplicas: f.running,
        availableReplicas: f.running,
        pendingReplicas: f.pending,
      },
    });
  });

  it('a failed cluster reports Unknown health and no replica counts', () => {
    expect(unreachableWorkloadReport('m1')).toEqual({
      applied: false,
      health: 'Unknown',
      appliedMessage: 'cluster "m1" is not reachable',
    });
  });
});
