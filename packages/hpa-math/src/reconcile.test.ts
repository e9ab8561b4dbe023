import type { HpaBehavior, MetricSpec } from '@flotilla/api';
import { describe, expect, it } from 'vitest';
import type { PodSample, PodState } from './group-pods.js';
import { proposeForMetric } from './metric-proposal.js';
import { emptyHistory, reconcileAutoscaler, type MetricProposal } from './reconcile.js';
import { agedRecommendations, NOW_MS } from './testing/aged.js';

const pod = (state: PodState, requestMilli: number, valueMilli: number | null): PodSample => ({
  state,
  requestMilli,
  valueMilli,
});
const cpu = (averageUtilization: number): MetricSpec => ({
  type: 'Resource',
  resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization } },
});

type Row = {
  id: string;
  name: string;
  specReplicas: number;
  statusReplicas?: number;
  min: number;
  max: number;
  /** Each metric's proposal, or 'invalid' for a metric whose value could not be fetched. */
  proposals?: (number | 'invalid')[];
  /** Or one cpu Utilization metric over these pods. */
  cpuTarget?: number;
  pods?: PodSample[];
  /** Absent: the HPA's first reconcile (it seeds the history with the current replicas). */
  recommendations?: { replicas: number; ageSeconds: number }[];
  behavior?: HpaBehavior;
  /** `condition` reads `Type=Status/Reason`. */
  want: { desired: number; rescale?: boolean; error?: boolean; condition?: string };
};

// Kubernetes' reconcileAutoscaler (horizontal.go): bounds, the maximum over metrics, invalid metrics, and
// horizontal_test.go TestUpscaleCap, TestUpscaleCapGreaterThanMaxReplicas, TestMoreReplicasThanSpecNoScale,
// TestSuperfluousMetrics, TestMissingReports.
const cases: Row[] = [
  {
    id: 'rec-01',
    name: 'spec replicas above max: desired = max without evaluating metrics',
    specReplicas: 12,
    min: 1,
    max: 10,
    proposals: [3],
    want: { desired: 10, rescale: true },
  },
  {
    id: 'rec-02',
    name: 'spec replicas below min: desired = min',
    specReplicas: 1,
    min: 2,
    max: 10,
    proposals: [1],
    want: { desired: 2, rescale: true },
  },
  {
    id: 'rec-03',
    name: 'spec replicas 0 with min >= 1: autoscaling disabled',
    specReplicas: 0,
    min: 1,
    max: 10,
    proposals: [5],
    want: { desired: 0, rescale: false, condition: 'ScalingActive=False/ScalingDisabled' },
  },
  {
    id: 'rec-04',
    name: 'several metrics: maximum proposal wins, then clamp (no behavior)',
    specReplicas: 4,
    min: 1,
    max: 10,
    proposals: [5, 7, 3],
    recommendations: [{ replicas: 4, ageSeconds: 0 }],
    want: { desired: 7 },
  },
  {
    id: 'rec-05',
    name: 'first reconcile records current replicas as a recommendation, so an immediate scale-down is held for the 300 s window',
    specReplicas: 6,
    min: 1,
    max: 10,
    proposals: [2],
    recommendations: [{ replicas: 6, ageSeconds: 0 }],
    want: { desired: 6, rescale: false },
  },
  {
    id: 'rec-06',
    name: 'same after the window has passed',
    specReplicas: 6,
    min: 1,
    max: 10,
    proposals: [2],
    recommendations: [{ replicas: 6, ageSeconds: 400 }],
    want: { desired: 2 },
  },
  {
    id: 'rec-07',
    name: 'one metric invalid, valid ones want to scale down: no change (k8s >= 1.21)',
    specReplicas: 5,
    min: 2,
    max: 6,
    proposals: [3, 'invalid'],
    want: { desired: 5, rescale: false, error: true },
  },
  {
    id: 'rec-08',
    name: 'one metric invalid, a valid one wants to scale up: scale up',
    specReplicas: 3,
    min: 2,
    max: 6,
    proposals: [4, 'invalid'],
    recommendations: [{ replicas: 3, ageSeconds: 0 }],
    want: { desired: 4 },
  },
  {
    id: 'rec-09',
    name: 'all metrics invalid: no change',
    specReplicas: 3,
    min: 1,
    max: 6,
    proposals: ['invalid', 'invalid'],
    want: { desired: 3, rescale: false, error: true },
  },
  {
    id: 'rec-10',
    name: 'k8s TestUpscaleCap: CPU 200% of request at a 10% target on 3 pods -> proposal 60; behavior scaleUp Percent 700/60s -> limit ceil(3 x 8) = 24',
    specReplicas: 3,
    min: 1,
    max: 100,
    proposals: [60],
    behavior: {
      scaleUp: {
        stabilizationWindowSeconds: 0,
        selectPolicy: 'Max',
        policies: [{ type: 'Percent', value: 700, periodSeconds: 60 }],
      },
    },
    want: { desired: 24, condition: 'ScalingLimited=True/ScaleUpLimit' },
  },
  {
    id: 'rec-11',
    name: 'k8s TestUpscaleCapGreaterThanMaxReplicas (as rec-10 with maxReplicas 20)',
    specReplicas: 3,
    min: 1,
    max: 20,
    proposals: [60],
    behavior: {
      scaleUp: {
        stabilizationWindowSeconds: 0,
        selectPolicy: 'Max',
        policies: [{ type: 'Percent', value: 700, periodSeconds: 60 }],
      },
    },
    want: { desired: 20, condition: 'ScalingLimited=True/TooManyReplicas' },
  },
  {
    id: 'rec-12',
    name: 'k8s TestMoreReplicasThanSpecNoScale: 5 running pods (surge) for spec 4 at exactly the target',
    specReplicas: 4,
    statusReplicas: 5,
    min: 1,
    max: 8,
    cpuTarget: 50,
    pods: [
      pod('ready', 1000, 500),
      pod('ready', 1000, 500),
      pod('ready', 1000, 500),
      pod('ready', 1000, 500),
      pod('ready', 1000, 500),
    ],
    want: { desired: 4 },
  },
  {
    id: 'rec-13',
    name: 'k8s TestSuperfluousMetrics at HPA level: proposal 24 clamped to maxReplicas 6',
    specReplicas: 4,
    min: 2,
    max: 6,
    proposals: [24],
    want: { desired: 6, condition: 'ScalingLimited=True/TooManyReplicas' },
  },
  {
    id: 'rec-14',
    name: 'k8s TestMissingReports: 4 spec replicas, one pod reported 200m of 200m request at target 50%',
    specReplicas: 4,
    min: 1,
    max: 5,
    cpuTarget: 50,
    pods: [pod('ready', 200, 200)],
    recommendations: [],
    want: { desired: 2 },
  },
];

function proposalsOf(row: Row): MetricProposal[] {
  if (row.cpuTarget !== undefined) {
    const scale = { specReplicas: row.specReplicas, statusReplicas: row.statusReplicas ?? row.specReplicas };
    return [proposeForMetric(cpu(row.cpuTarget), { kind: 'pods', pods: row.pods! }, scale)];
  }
  return row.proposals!.map((p, i) =>
    p === 'invalid'
      ? { metric: `m${i}`, error: new Error('unable to fetch metrics'), reason: 'FailedGetExternalMetric' }
      : { metric: `m${i}`, replicas: p },
  );
}

describe("Kubernetes' HPA reconcile", () => {
  it.each(cases)('$name', (row) => {
    const history = emptyHistory();
    if (row.recommendations) history.recommendations = agedRecommendations(row.recommendations);
    const out = reconcileAutoscaler({
      specReplicas: row.specReplicas,
      minReplicas: row.min,
      maxReplicas: row.max,
      behavior: row.behavior,
      proposals: proposalsOf(row),
      history,
      nowMs: NOW_MS,
    });
    expect(out.desiredReplicas).toBe(row.want.desired);
    expect(out.rescale).toBe(row.want.rescale ?? row.want.desired !== row.specReplicas);
    expect(out.error !== undefined).toBe(row.want.error ?? false);
    if (row.want.condition) {
      const [, type, status, reason] = /^(\w+)=(\w+)\/(\w+)$/.exec(row.want.condition)!;
      expect(out.conditions).toContainEqual(expect.objectContaining({ type, status, reason }));
    }
  });
});

describe('reconcile history and conditions', () => {
  const scaleUp = { proposals: [{ replicas: 9 }], minReplicas: 1, maxReplicas: 20 };

  it('the first reconcile seeds the history with the current replicas, then stores the proposal', () => {
    const out = reconcileAutoscaler({
      ...scaleUp,
      specReplicas: 6,
      proposals: [{ replicas: 2 }],
      history: emptyHistory(),
      nowMs: NOW_MS,
    });
    expect(out.history.recommendations).toEqual([
      { replicas: 6, atMs: NOW_MS },
      { replicas: 2, atMs: NOW_MS },
    ]);
    expect(out.conditions).toContainEqual(
      expect.objectContaining({ type: 'AbleToScale', reason: 'ScaleDownStabilized' }),
    );
  });

  it('records scale events only with behavior, and the next reconcile counts them against the rate', () => {
    const without = reconcileAutoscaler({ ...scaleUp, specReplicas: 4, history: emptyHistory(), nowMs: NOW_MS });
    expect(without.history.scaleEvents).toEqual({ scaleUp: [], scaleDown: [] });

    const behavior: HpaBehavior = { scaleUp: { policies: [{ type: 'Pods', value: 2, periodSeconds: 60 }] } };
    const first = reconcileAutoscaler({
      ...scaleUp,
      behavior,
      specReplicas: 4,
      history: emptyHistory(),
      nowMs: NOW_MS,
    });
    expect(first.desiredReplicas).toBe(6);
    expect(first.history.scaleEvents.scaleUp).toEqual([{ replicaChange: 2, atMs: NOW_MS }]);
    const soon = reconcileAutoscaler({
      ...scaleUp,
      behavior,
      specReplicas: 6,
      history: first.history,
      nowMs: NOW_MS + 15_000,
    });
    expect(soon.desiredReplicas).toBe(6);
    expect(soon.conditions).toContainEqual(
      expect.objectContaining({ type: 'ScalingLimited', status: 'True', reason: 'ScaleUpLimit' }),
    );
    const later = reconcileAutoscaler({
      ...scaleUp,
      behavior,
      specReplicas: 6,
      history: first.history,
      nowMs: NOW_MS + 60_000,
    });
    expect(later.desiredReplicas).toBe(8);
  });

  it('reports a successful rescale and leaves ScalingLimited False within range', () => {
    const out = reconcileAutoscaler({ ...scaleUp, specReplicas: 5, history: emptyHistory(), nowMs: NOW_MS });
    expect(out.desiredReplicas).toBe(9);
    expect(out.conditions).toEqual([
      expect.objectContaining({ type: 'AbleToScale', status: 'True', reason: 'SucceededRescale' }),
      expect.objectContaining({ type: 'ScalingActive', status: 'True', reason: 'ValidMetricFound' }),
      expect.objectContaining({ type: 'ScalingLimited', status: 'False', reason: 'DesiredWithinRange' }),
    ]);
  });

  it('an invalid metric is skipped, and reported, when the valid ones scale up', () => {
    const proposals: MetricProposal[] = [
      { replicas: 7 },
      { error: new Error('no data'), reason: 'FailedGetPodsMetric' },
    ];
    const out = reconcileAutoscaler({ ...scaleUp, proposals, specReplicas: 5, history: emptyHistory(), nowMs: NOW_MS });
    expect(out.desiredReplicas).toBe(7);
    expect(out.skippedMetricError?.message).toBe('no data');
  });

  it('an invalid metric that blocks the round sets ScalingActive False with its reason', () => {
    const proposals: MetricProposal[] = [
      { replicas: 2 },
      { error: new Error('no data'), reason: 'FailedGetPodsMetric' },
    ];
    const out = reconcileAutoscaler({ ...scaleUp, proposals, specReplicas: 5, history: emptyHistory(), nowMs: NOW_MS });
    expect(out.conditions).toContainEqual(
      expect.objectContaining({ type: 'ScalingActive', status: 'False', reason: 'FailedGetPodsMetric' }),
    );
  });
});
