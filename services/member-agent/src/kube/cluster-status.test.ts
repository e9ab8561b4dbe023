import { DEFAULT_RESOURCE_MODELS } from '@flotilla/api';
import { describe, expect, it } from 'vitest';
import {
  templatePodRequest,
  kubeClusterStatus,
  nodeView,
  podRequest,
  podView,
  probed,
  readiness,
  unreachableClusterStatus,
  type KubePod,
  type ProbeHistory,
  type ProbeResult,
  type Readiness,
  type ReadinessThresholds,
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
    // After what runs on them, n1 keeps 3420m and 15Gi, n2 3 cpu and 14Gi: both grade 1 of the default models.
    expect(kubeClusterStatus('v1.30.4', nodes.map(nodeView), pods.map(podView), DEFAULT_RESOURCE_MODELS)).toEqual({
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
        allocatableModelings: DEFAULT_RESOURCE_MODELS.map(({ grade }) => ({ grade, count: grade === 1 ? 2 : 0 })),
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

const T = { failureThresholdMs: 5000, successThresholdMs: 3000 };
const NOT_HEALTHY_PATCH = {
  conditions: [
    {
      type: 'Ready',
      status: 'False',
      reason: 'ClusterNotReady',
      message: 'cluster is reachable but health endpoint responded without ok',
    },
  ],
};

/** Folds the probes in order and gives the readiness seen right after each one. */
function afterEachProbe(
  probes: Array<[atMs: number, result: ProbeResult]>,
  thresholds: ReadinessThresholds = T,
): Array<Readiness['ready']> {
  let h: ProbeHistory = {};
  return probes.map(([at, result]) => {
    h = probed(h, result, at, thresholds);
    return readiness(h, at, thresholds).ready;
  });
}

describe('templatePodRequest', () => {
  it("is a template's pod request, made once per pod spec object (a template is read by every pass)", () => {
    const spec = {
      initContainers: [{ resources: { requests: { cpu: '2' } } }],
      containers: [
        { resources: { requests: { cpu: '500m', memory: '1Gi' } } },
        { resources: { requests: { cpu: '1' } } },
      ],
      overhead: { cpu: '100m' },
    };
    const request = templatePodRequest(spec);
    expect(request).toEqual({ cpuMilli: 2100, memoryBytes: 1024 ** 3, pods: 1 });
    expect(templatePodRequest(spec)).toBe(request);
    expect(Object.isFrozen(request)).toBe(true);
    // A changed template is a new object (an informer replaces it), read anew.
    const changed = { ...spec, overhead: { cpu: '200m' } };
    expect(templatePodRequest(changed)).toEqual({ cpuMilli: 2200, memoryBytes: 1024 ** 3, pods: 1 });
  });
});

describe('readiness (Karmada --cluster-failure-threshold and --cluster-success-threshold)', () => {
  it('stays Ready until probes have failed for the failure threshold, then reports why', () => {
    let h = probed({}, 'unreachable', 1000, T);
    expect(readiness(h, 1000, T)).toEqual({ ready: 'pending', recheckInMs: 5000 });
    h = probed(h, 'unreachable', 4000, T);
    expect(readiness(h, 4000, T)).toEqual({ ready: 'pending', recheckInMs: 2000 });
    expect(readiness(h, 6000, T)).toEqual({ ready: false, patch: unreachableClusterStatus() });
    const atOnce = { ...T, failureThresholdMs: 0 };
    expect(readiness(probed({}, 'unhealthy', 0, atOnce), 0, atOnce)).toEqual({
      ready: false,
      patch: NOT_HEALTHY_PATCH,
    });
    // Where the member says why (a simulation that cannot be read), the message carries it after Karmada's.
    const why = 'spec.simulation.allocatable.cpu: invalid quantity "eight"';
    expect(readiness(probed({}, 'unhealthy', 0, atOnce, why), 0, atOnce)).toEqual({
      ready: false,
      patch: {
        conditions: [
          {
            ...NOT_HEALTHY_PATCH.conditions[0],
            message: `cluster is reachable but health endpoint responded without ok: ${why}`,
          },
        ],
      },
    });
  });

  it('is Ready again only once probes have succeeded for the success threshold, not Ready for the last reason until then', () => {
    let h = probed(probed({}, 'unhealthy', 0, T), 'unhealthy', 5000, T);
    expect(readiness(h, 5000, T)).toEqual({ ready: false, patch: NOT_HEALTHY_PATCH });
    h = probed(h, 'ok', 6000, T);
    expect(readiness(h, 6000, T)).toEqual({ ready: false, patch: NOT_HEALTHY_PATCH, recheckInMs: 3000 });
    h = probed(h, 'ok', 8000, T);
    expect(readiness(h, 8000, T)).toEqual({ ready: false, patch: NOT_HEALTHY_PATCH, recheckInMs: 1000 });
    expect(readiness(h, 9000, T)).toEqual({ ready: true });
    // Ready again: the history is clean, and a new failure runs the whole failure threshold.
    h = probed(h, 'ok', 9000, T);
    expect(h).toEqual({});
    expect(readiness(probed(h, 'unreachable', 9500, T), 9500, T)).toEqual({ ready: 'pending', recheckInMs: 5000 });
  });

  it.each<{
    name: string;
    thresholds?: ReadinessThresholds;
    probes: Array<[number, ProbeResult]>;
    want: Array<Readiness['ready']>;
  }>([
    {
      name: 'one lost probe within the failure threshold: Ready throughout, no recovery to wait for',
      probes: [
        [0, 'ok'],
        [1000, 'unreachable'],
        [2000, 'ok'],
      ],
      want: [true, 'pending', true],
    },
    {
      name: 'flapping: fail, succeed once, fail again does not bounce Ready',
      probes: [
        [0, 'unreachable'],
        [5000, 'unreachable'],
        [6000, 'ok'],
        [7000, 'unreachable'],
        [8000, 'ok'],
        [10_000, 'ok'],
        [11_000, 'ok'],
      ],
      want: [
        'pending',
        false,
        false,
        // failing again while recovering: not Ready at once, the failure threshold is not run again
        false,
        // the recovery starts again from the first good probe after the last failure
        false,
        false,
        true,
      ],
    },
    {
      name: 'a recovery that outlasted the threshold between two probes was reached: the next failure starts afresh',
      probes: [
        [0, 'unreachable'],
        [5000, 'unreachable'],
        [6000, 'ok'],
        [20_000, 'unreachable'],
        [25_000, 'unreachable'],
      ],
      want: ['pending', false, false, 'pending', false],
    },
    {
      name: 'a failure threshold that ran out between two probes was reached: the good probe starts a recovery',
      probes: [
        [0, 'unreachable'],
        [9000, 'ok'],
        [12_000, 'ok'],
      ],
      want: ['pending', false, true],
    },
    {
      name: 'success threshold 0: Ready again on the first good probe',
      thresholds: { ...T, successThresholdMs: 0 },
      probes: [
        [0, 'unreachable'],
        [5000, 'unreachable'],
        [6000, 'ok'],
      ],
      want: ['pending', false, true],
    },
  ])('$name', ({ thresholds, probes, want }) => {
    expect(afterEachProbe(probes, thresholds)).toEqual(want);
  });
});
