import { describe, expect, it } from 'vitest';
import {
  notAppliedReport,
  plainObjectReport,
  selectorMatches,
  readyPodsCpuMilli,
  workloadReportFrom,
  type PodView,
} from './workload-status.js';

const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' };
const pod = (name: string, o: Partial<PodView> = {}): PodView => ({
  namespace: 'shop',
  name,
  labels: { app: 'web' },
  unschedulable: false,
  ready: true,
  request: { cpuMilli: 500, memoryBytes: 0, pods: 1 },
  nodeName: 'n1',
  phase: 'Running',
  ...o,
});

describe('workloadReportFrom', () => {
  it('reports replicas, ready, available and unschedulable pods; Healthy only when all are available', () => {
    const r = workloadReportFrom({
      ref,
      view: {
        ref,
        replicas: 3,
        generation: 2,
        status: {
          observedGeneration: 2,
          readyReplicas: 2,
          availableReplicas: 2,
          conditions: [{ type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable' }],
        },
      },
      pods: [
        pod('a'),
        pod('b'),
        pod('c', { unschedulable: true, ready: false, nodeName: undefined, phase: 'Pending' }),
      ],
    });
    expect(r).toEqual({
      applied: true,
      health: 'Unhealthy',
      status: {
        replicas: 3,
        readyReplicas: 2,
        availableReplicas: 2,
        pendingReplicas: 1,
        conditions: [{ type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable' }],
      },
    });
    const healthy = workloadReportFrom({
      ref,
      view: {
        ref,
        replicas: 2,
        generation: 2,
        status: { observedGeneration: 2, readyReplicas: 2, availableReplicas: 2 },
      },
      pods: [pod('a'), pod('b')],
    });
    expect(healthy.health).toBe('Healthy');
    const stale = workloadReportFrom({
      ref,
      view: {
        ref,
        replicas: 2,
        generation: 3,
        status: { observedGeneration: 2, readyReplicas: 2, availableReplicas: 2 },
      },
      pods: [],
    });
    expect(stale.health).toBe('Unhealthy');
  });

  it("sums the ready pods' CPU usage", () => {
    const pods = [pod('a'), pod('b'), pod('c', { ready: false })];
    const podCpu = new Map([
      ['a', 300],
      ['b', 200],
      ['c', 999],
    ]);
    expect(readyPodsCpuMilli(pods, podCpu)).toBe(500);
    // Ready pods metrics has none of: no usage (not a 0 nobody measured); no pod ready: none used.
    expect(readyPodsCpuMilli([pod('x')], podCpu)).toBeUndefined();
    expect(readyPodsCpuMilli([pod('c', { ready: false })], podCpu)).toBe(0);
  });

  it("gives one pod's request and the member HPA's status, and no usage (it moves: the usage bucket has it)", () => {
    const r = workloadReportFrom({
      ref,
      view: { ref, replicas: 3, status: { readyReplicas: 2, availableReplicas: 2 } },
      pods: [pod('a'), pod('b'), pod('c', { ready: false })],
      cpuRequestMilli: 500,
      hpa: { minReplicas: 1, maxReplicas: 10, currentReplicas: 3, desiredReplicas: 4, cpuUtilization: 50 },
    });
    expect(r.status).not.toHaveProperty('cpuUsageMilli');
    expect(r.status).toMatchObject({
      cpuRequestMilli: 500,
      hpa: {
        minReplicas: 1,
        maxReplicas: 10,
        currentReplicas: 3,
        desiredReplicas: 4,
        currentCPUUtilizationPercentage: 50,
      },
    });
  });

  it('without a request in the template there is no request', () => {
    const r = workloadReportFrom({ ref, view: { ref, replicas: 1 }, pods: [pod('a')] });
    expect(r.status).not.toHaveProperty('cpuUsageMilli');
    expect(r.status).not.toHaveProperty('cpuRequestMilli');
  });

  it('plain objects are healthy once applied; failures carry their reason', () => {
    expect(plainObjectReport()).toEqual({ applied: true, health: 'Healthy' });
    expect(notAppliedReport('x')).toEqual({ applied: false, health: 'Unknown', appliedMessage: 'x' });
  });

  it.each([
    [{ app: 'web' }, { app: 'web', pod: 'x' }, true],
    [{ app: 'web', tier: 'fe' }, { app: 'web' }, false],
    [{}, { app: 'web' }, false],
    [undefined, { app: 'web' }, false],
  ])('selector %j matches %j: %s', (selector, labels, matches) => {
    expect(selectorMatches(selector, labels)).toBe(matches);
  });
});
