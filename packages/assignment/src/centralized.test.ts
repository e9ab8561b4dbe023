import type { FederatedHPASpec } from '@flotilla/api';
import { emptyHistory, type MemberReport } from '@flotilla/hpa-math';
import { describe, expect, it } from 'vitest';
import { decideCentralized } from './centralized.js';

const spec = (targetUtilization: number, minReplicas: number, maxReplicas: number): FederatedHPASpec => ({
  scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'nginx' },
  minReplicas,
  maxReplicas,
  metrics: [
    {
      type: 'Resource',
      resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: targetUtilization } },
    },
  ],
});

/** `replicas` ready pods requesting 1000m, each using `usagePerPod`. */
const member = (
  cluster: string,
  replicas: number,
  usagePerPod: number,
  clusterReady = true,
  pending = 0,
): MemberReport => ({
  cluster,
  clusterReady,
  specReplicas: replicas + pending,
  readyReplicas: replicas,
  pendingReplicas: pending,
  cpuUsageMilli: replicas * usagePerPod,
  cpuRequestMilli: 1000,
});

// Karmada's FederatedHPA (the shipped controller): the same worked examples hpa-math's calibration tests hold,
// here through the whole pass the hpa-assigner makes, with the Kubernetes HPA's normalisation on top.
const cases = [
  {
    name: 'Duplicated placement: 2 clusters × 2 pods at 200 % of a 50 % target -> 4',
    templateReplicas: 2,
    spec: spec(50, 1, 10),
    members: [member('member1', 2, 1000), member('member2', 2, 1000)],
    want: { desiredReplicas: 4, calibration: 2 },
  },
  {
    name: 'a lost cluster: template 40, cluster A not Ready, cluster B 30 pods at 150 % -> 60',
    templateReplicas: 40,
    spec: spec(50, 1, 100),
    members: [member('member-a', 10, 2000, false), member('member-b', 30, 750)],
    want: { desiredReplicas: 60, calibration: 0.75 },
  },
  {
    name: 'the lost-cluster example capped by maxReplicas 50',
    templateReplicas: 40,
    spec: spec(50, 1, 50),
    members: [member('member-a', 10, 2000, false), member('member-b', 30, 750)],
    want: { desiredReplicas: 50, calibration: 0.75 },
  },
  {
    name: 'within tolerance keeps the template replicas',
    templateReplicas: 3,
    spec: spec(50, 1, 10),
    members: [member('member1', 2, 520), member('member2', 1, 520)],
    want: { desiredReplicas: 3, calibration: 1 },
  },
  {
    // Kubernetes' scale-up limit without behavior: max(2 × 2, 4) = 4 although the metric asks for 10.
    name: 'the scale-up limit holds a large jump to max(2 × current, 4)',
    templateReplicas: 2,
    spec: spec(10, 1, 20),
    members: [member('member1', 1, 500), member('member2', 1, 500)],
    want: { desiredReplicas: 4, calibration: 1 },
  },
  {
    // Pending pods count as 0 % on a scale-up: 2 ready at 100 % + 2 pending at 0 % of a 50 % target is 4 pods at
    // 50 %, so the scale-up is cancelled.
    name: 'pending pods are counted as idle when scaling up',
    templateReplicas: 4,
    spec: spec(50, 1, 10),
    members: [member('member1', 2, 1000, true, 2)],
    want: { desiredReplicas: 4, calibration: 1 },
  },
];

describe("Karmada's shipped FederatedHPA: one replica count for the template", () => {
  it.each(cases)('$name', ({ templateReplicas, spec: s, members, want }) => {
    const d = decideCentralized({ spec: s, templateReplicas, members, history: emptyHistory(), nowMs: 0 });
    expect(d).toMatchObject(want);
    expect(d.rescale).toBe(want.desiredReplicas !== templateReplicas);
  });

  it('no Ready cluster with replicas: ScalingActive False and the template left alone', () => {
    const d = decideCentralized({
      spec: spec(50, 1, 10),
      templateReplicas: 4,
      members: [member('member1', 4, 900, false)],
      history: emptyHistory(),
      nowMs: 0,
    });
    expect(d).toMatchObject({ desiredReplicas: 4, rescale: false });
    expect(d.conditions).toContainEqual(
      expect.objectContaining({ type: 'ScalingActive', status: 'False', reason: 'FailedGetScale' }),
    );
  });

  it('a metric the member clusters do not report makes the metric invalid, not the pass', () => {
    const s = spec(50, 1, 10);
    s.metrics!.push({
      type: 'Pods',
      pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } },
    });
    const d = decideCentralized({
      spec: s,
      templateReplicas: 2,
      members: [member('m', 2, 1000)],
      history: emptyHistory(),
      nowMs: 0,
    });
    // the cpu metric scales up, so Kubernetes tolerates the invalid one
    expect(d.desiredReplicas).toBe(4);
  });

  it('the downscale stabilization window holds the highest recent recommendation', () => {
    const s = spec(50, 1, 10);
    const first = decideCentralized({
      spec: s,
      templateReplicas: 4,
      members: [member('m', 4, 500)],
      history: emptyHistory(),
      nowMs: 0,
    });
    expect(first.desiredReplicas).toBe(4);
    const low = [member('m', 4, 100)];
    const held = decideCentralized({
      spec: s,
      templateReplicas: 4,
      members: low,
      history: first.history,
      nowMs: 60_000,
    });
    expect(held).toMatchObject({ desiredReplicas: 4, rescale: false });
    const after = decideCentralized({
      spec: s,
      templateReplicas: 4,
      members: low,
      history: held.history,
      nowMs: 400_000,
    });
    expect(after.desiredReplicas).toBe(1);
  });
});
