import { describe, expect, it } from 'vitest';
import {
  kubeClusterStatus,
  nodeView,
  podRequest,
  podView,
  probed,
  readiness,
  unreachableClusterStatus,
  type KubePod,
} from './cluster-status.js';

const pod = (name: string, nodeName: string | undefined, phase: string, cpu: string, memory: string): KubePod => ({
  metadata: { name, namespace: 'default' },
  spec: { ...(nodeName ? { nodeName } : {}), containers: [{ resources: { requests: { cpu, memory } } }] },
  status: { phase },
});

describe('kubeClusterStatus (Karmada cluster status controller)', () => {
  it('sums node allocatable, bound pods as allocated and unbound pods as allocating; finished pods free their room', () => {
    const nodes = [
      {
        metadata: { name: 'n1' },
        status: { allocatable: { cpu: '3920m', memory: '16Gi', pods: '110', 'ephemeral-storage': '100Gi' } },
      },
      { metadata: { name: 'n2' }, status: { allocatable: { cpu: '4', memory: '16Gi', pods: '110' } } },
    ];
    const pods = [
      pod('a', 'n1', 'Running', '500m', '1Gi'),
      pod('b', 'n2', 'Running', '1', '2Gi'),
      pod('done', 'n2', 'Succeeded', '2', '2Gi'),
      pod('crashed', 'n1', 'Failed', '2', '2Gi'),
      pod('waiting', undefined, 'Pending', '250m', '512Mi'),
    ];
    expect(kubeClusterStatus('v1.30.4', nodes.map(nodeView), pods.map(podView))).toEqual({
      kubernetesVersion: 'v1.30.4',
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'ClusterReady',
          message: 'cluster is healthy and ready to accept workloads',
        },
      ],
      resourceSummary: {
        allocatable: { cpu: '7920m', memory: '32Gi', pods: '220' },
        allocated: { cpu: '1500m', memory: '3Gi', pods: '2' },
        allocating: { cpu: '250m', memory: '512Mi', pods: '1' },
      },
    });
  });

  it.each([
    [
      'containers sum',
      { containers: [{ resources: { requests: { cpu: '100m' } } }, { resources: { requests: { cpu: '200m' } } }] },
      300,
    ],
    [
      'a larger init container wins',
      {
        containers: [{ resources: { requests: { cpu: '100m' } } }],
        initContainers: [{ resources: { requests: { cpu: '1' } } }],
      },
      1000,
    ],
    ['overhead adds', { containers: [{ resources: { requests: { cpu: '100m' } } }], overhead: { cpu: '50m' } }, 150],
    ['no requests', { containers: [{}] }, 0],
  ])('pod request: %s', (_name, spec, cpuMilli) => {
    expect(podRequest({ spec }).cpuMilli).toBe(cpuMilli);
  });

  it('an unreachable cluster reports only Ready False', () => {
    expect(unreachableClusterStatus()).toEqual({
      conditions: [
        { type: 'Ready', status: 'False', reason: 'ClusterNotReachable', message: 'cluster is not reachable' },
      ],
    });
  });

  it('a pod view keeps what the reports read: scheduling, readiness and the effective request', () => {
    const v = podView({
      metadata: { name: 'p', namespace: 'shop', labels: { app: 'web' } },
      spec: { containers: [{ resources: { requests: { cpu: '250m', memory: '1Gi' } } }] },
      status: {
        phase: 'Pending',
        conditions: [
          { type: 'PodScheduled', status: 'False' },
          { type: 'Ready', status: 'False' },
        ],
      },
    });
    expect(v).toEqual({
      namespace: 'shop',
      name: 'p',
      labels: { app: 'web' },
      phase: 'Pending',
      unschedulable: true,
      ready: false,
      request: { cpuMilli: 250, memoryBytes: 1024 ** 3, pods: 1 },
    });
  });
});

describe('readiness (Karmada --cluster-failure-threshold)', () => {
  it('stays Ready until probes have failed for the threshold, then reports why; one success resets it', () => {
    let h = probed({}, 'unreachable', 1000);
    expect(readiness(h, 1000, 5000)).toEqual({ ready: 'pending', recheckInMs: 5000 });
    h = probed(h, 'unreachable', 4000);
    expect(readiness(h, 4000, 5000)).toEqual({ ready: 'pending', recheckInMs: 2000 });
    expect(readiness(h, 6000, 5000)).toEqual({ ready: false, patch: unreachableClusterStatus() });
    expect(readiness(probed(h, 'ok', 6500), 6500, 5000)).toEqual({ ready: true });
    expect(readiness(probed({}, 'unhealthy', 0), 0, 0)).toEqual({
      ready: false,
      patch: {
        conditions: [
          {
            type: 'Ready',
            status: 'False',
            reason: 'ClusterNotReady',
            message: 'cluster is reachable but health endpoint responded without ok',
          },
        ],
      },
    });
  });
});
