// Where the simulated kubelet places pods (capacity.ts's rule, run by SimulatedMember), and what the kube driver's
// cluster status makes of them (Karmada's allocated / allocating), through the member port as the driver sees it.
import { DEFAULT_RESOURCE_MODELS } from '@flotilla/api';
import { describe, expect, it } from 'vitest';
import { type KubeNode, type KubePod, kubeClusterStatus, nodeView, podView } from '../kube/cluster-status.js';
import { SimulatedMember } from './simulated-member.js';
import { parseSimulation } from './simulation-spec.js';

interface Workload {
  name: string;
  replicas: number;
  cpu: string;
  memory: string;
  namespace?: string;
}
const w = (name: string, replicas: number, cpu: string, memory: string, namespace = 'default'): Workload => ({
  name,
  replicas,
  cpu,
  memory,
  namespace,
});

/** A member of one node of `allocatable`, with `workloads` applied as Deployments in this order. */
async function memberWith(allocatable: { cpu: string; memory: string; pods: string }, workloads: Workload[]) {
  const sim = new SimulatedMember({ cluster: 'm1', clock: { now: () => new Date(0) } });
  sim.configure(parseSimulation({ allocatable }));
  for (const ns of new Set(workloads.map((x) => x.namespace ?? 'default')))
    if (ns !== 'default') await sim.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  for (const x of workloads) {
    const labels = { app: x.name };
    const container = { name: 'c', resources: { requests: { cpu: x.cpu, memory: x.memory } } };
    await sim.apply({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: x.name, namespace: x.namespace ?? 'default' },
      spec: {
        replicas: x.replicas,
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [container] } },
      },
    });
  }
  return sim;
}

/** Each workload's pods as [running, pending], read from the member's pods. */
function placement(sim: SimulatedMember): Record<string, [number, number]> {
  const out: Record<string, [number, number]> = {};
  for (const d of sim.objects.list('apps/v1', 'Deployment')) out[d.metadata!.name!] = [0, 0];
  for (const p of sim.objects.list('v1', 'Pod')) {
    const owner = String(p.metadata!.name).replace(/-deployment-\d+$/, '');
    out[owner]![(p.status as { phase: string }).phase === 'Running' ? 0 : 1]++;
  }
  return out;
}

const summaryOf = (sim: SimulatedMember) =>
  kubeClusterStatus(
    'v1.31.0',
    [...sim.objects.list('v1', 'Node')].map((n) => nodeView(n as KubeNode)),
    [...sim.objects.list('v1', 'Pod')].map((p) => podView(p as KubePod)),
    DEFAULT_RESOURCE_MODELS,
  ).resourceSummary;

describe('the simulated kubelet places pods by their requests', () => {
  it.each([
    {
      name: 'everything fits',
      allocatable: { cpu: '8', memory: '32Gi', pods: '110' },
      workloads: [w('web', 3, '500m', '1Gi')],
      running: { web: [3, 0] },
    },
    {
      // Karmada's estimator example (reference §8): 4 cpu / 8Gi / 100 pods with 1 cpu / 2Gi / 2 pods allocated
      // has room for 6 pods of 500m / 1Gi; the simulator runs exactly those 6.
      name: 'the estimator example: cpu and memory both allow 6',
      allocatable: { cpu: '4', memory: '8Gi', pods: '100' },
      workloads: [w('a', 2, '500m', '1Gi'), w('b', 10, '500m', '1Gi')],
      running: { a: [2, 0], b: [6, 4] },
    },
    {
      name: 'cpu is the limit',
      allocatable: { cpu: '2', memory: '64Gi', pods: '110' },
      workloads: [w('web', 5, '750m', '1Gi')],
      running: { web: [2, 3] },
    },
    {
      name: 'memory is the limit',
      allocatable: { cpu: '64', memory: '4Gi', pods: '110' },
      workloads: [w('web', 5, '100m', '3Gi')],
      running: { web: [1, 4] },
    },
    {
      name: 'the pod count is the limit',
      allocatable: { cpu: '64', memory: '64Gi', pods: '3' },
      workloads: [w('web', 5, '0', '0')],
      running: { web: [3, 2] },
    },
    {
      name: 'namespace/name order decides who runs, not the order they came in',
      allocatable: { cpu: '2', memory: '64Gi', pods: '110' },
      workloads: [w('alpha', 2, '1', '0', 'b'), w('zeta', 2, '1', '0', 'a')],
      running: { zeta: [2, 0], alpha: [0, 2] },
    },
    {
      name: 'a later, smaller workload fills the room a bigger one could not use',
      allocatable: { cpu: '3', memory: '64Gi', pods: '110' },
      workloads: [w('a-big', 2, '2', '0'), w('b-small', 2, '500m', '0')],
      running: { 'a-big': [1, 1], 'b-small': [2, 0] },
    },
    {
      name: 'zero replicas',
      allocatable: { cpu: '1', memory: '1Gi', pods: '1' },
      workloads: [w('idle', 0, '500m', '1Gi')],
      running: { idle: [0, 0] },
    },
  ])('$name', async ({ allocatable, workloads, running }) => {
    expect(placement(await memberWith(allocatable, workloads))).toEqual(running);
  });

  it('running pods count as allocated and Pending ones as allocating, as Karmada counts them', async () => {
    const sim = await memberWith({ cpu: '4', memory: '8Gi', pods: '100' }, [
      w('a', 2, '500m', '1Gi'),
      w('b', 10, '500m', '1Gi'),
    ]);
    expect(summaryOf(sim)).toEqual({
      allocatable: { cpu: '4', memory: '8Gi', pods: '100' },
      allocated: { cpu: '4', memory: '8Gi', pods: '8' },
      allocating: { cpu: '2', memory: '4Gi', pods: '4' },
      // One node of the cluster's shape, full: grade 0.
      allocatableModelings: DEFAULT_RESOURCE_MODELS.map(({ grade }) => ({ grade, count: grade === 0 ? 1 : 0 })),
    });
  });

  it('an empty cluster reports zero allocated and allocating', async () => {
    expect(summaryOf(await memberWith({ cpu: '8', memory: '32Gi', pods: '110' }, []))).toEqual({
      allocatable: { cpu: '8', memory: '32Gi', pods: '110' },
      allocated: { cpu: '0', memory: '0', pods: '0' },
      allocating: { cpu: '0', memory: '0', pods: '0' },
      // 8 cpu reach grade 4, 32Gi only grade 3: the node is grade 3.
      allocatableModelings: DEFAULT_RESOURCE_MODELS.map(({ grade }) => ({ grade, count: grade === 3 ? 1 : 0 })),
    });
  });
});
