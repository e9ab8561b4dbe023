import type { MetricSpec } from '@flotilla/api';
import { describe, expect, it } from 'vitest';
import {
  CRON_METRIC_NAME,
  cronMetricValue,
  ehpaMetrics,
  legacyPredictionPerPodMilli,
  PREDICTION_METRIC_NAME,
  predictionAdapterValue,
  predictionAverageValueMilli,
} from './ehpa-combine.js';
import { MetricComputationError, OutdatedTimeSeriesError } from './errors.js';
import type { PodSample } from './group-pods.js';
import { proposeForMetric, type MetricObservation } from './metric-proposal.js';
import { emptyHistory, reconcileAutoscaler, type MetricProposal } from './reconcile.js';
import { agedRecommendations, NOW_MS } from './testing/aged.js';

const ready = (requestMilli: number, valueMilli: number): PodSample => ({ state: 'ready', requestMilli, valueMilli });
const cpu50: MetricSpec = {
  type: 'Resource',
  resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } },
};
const legacyPrediction: MetricSpec = {
  type: 'Pods',
  pods: { metric: { name: 'crane_pod_cpu_usage' }, target: { type: 'AverageValue', averageValue: '500m' } },
};
const busyPods = [ready(1000, 900), ready(1000, 800), ready(1000, 1000), ready(1000, 700)];
const quietPods = [ready(1000, 300), ready(1000, 300), ready(1000, 300), ready(1000, 300)];

/** One metric of the HPA Crane builds, with what its metrics API returns and the proposal it must make. */
type Metric =
  | { kind: 'original'; pods: PodSample[]; expectedProposal: number }
  | { kind: 'prediction (HEAD)'; adapterValue: number; expectedProposal: number }
  | { kind: 'prediction (legacy Pods metric)'; perPodValueMilli: number; expectedProposal: number }
  | { kind: 'cron'; adapterValue: number; expectedProposal: number };

type Row = {
  id: string;
  name: string;
  specReplicas: number;
  statusReplicas: number;
  minReplicas: number;
  maxReplicas: number;
  /** The prediction target, from 4 available pods requesting 1000m at 50 %. */
  predictionTargetMilli: number;
  metrics: Metric[];
  recommendations?: { replicas: number; ageSeconds: number }[];
  want: { maxProposal: number; desired: number; condition?: string };
};

/** spec = status = 4 pods requesting 1000m, min 1, max 20; the prediction target is trunc(4 × 1000m × 50 / 100 / 4). */
const fourPodsAtFiftyPercent = {
  specReplicas: 4,
  statusReplicas: 4,
  minReplicas: 1,
  maxReplicas: 20,
  predictionTargetMilli: 500,
};

// Crane's EffectiveHPA: original, prediction and cron metrics in one HPA (HEAD semantics unless marked legacy).
const combined: Row[] = [
  {
    id: 'ehpa-01',
    name: 'original CPU + HEAD prediction + active cron; first reconcile, no behavior',
    ...fourPodsAtFiftyPercent,
    metrics: [
      { kind: 'original', pods: busyPods, expectedProposal: 7 },
      { kind: 'prediction (HEAD)', adapterValue: 3, expectedProposal: 6 },
      { kind: 'cron', adapterValue: 10, expectedProposal: 10 },
    ],
    recommendations: [{ replicas: 4, ageSeconds: 0 }],
    want: { maxProposal: 10, desired: 8, condition: 'ScaleUpLimit' },
  },
  {
    id: 'ehpa-02',
    name: 'same, cron inactive (HEAD cron value = minReplicas = 1)',
    ...fourPodsAtFiftyPercent,
    metrics: [
      { kind: 'original', pods: busyPods, expectedProposal: 7 },
      { kind: 'prediction (HEAD)', adapterValue: 3, expectedProposal: 6 },
      { kind: 'cron', adapterValue: 1, expectedProposal: 1 },
    ],
    recommendations: [{ replicas: 4, ageSeconds: 0 }],
    want: { maxProposal: 7, desired: 7 },
  },
  {
    id: 'ehpa-03',
    name: 'legacy prediction metric crane_pod_cpu_usage (<= v0.7.0) for the same forecast',
    ...fourPodsAtFiftyPercent,
    metrics: [
      { kind: 'original', pods: busyPods, expectedProposal: 7 },
      { kind: 'prediction (legacy Pods metric)', perPodValueMilli: 988, expectedProposal: 8 },
    ],
    recommendations: [{ replicas: 4, ageSeconds: 0 }],
    want: { maxProposal: 8, desired: 8 },
  },
  {
    id: 'ehpa-04',
    name: 'prediction holds replicas during a dip: CPU wants 3, forecast peak 2 cores vs 500m target keeps 4',
    ...fourPodsAtFiftyPercent,
    metrics: [
      { kind: 'original', pods: quietPods, expectedProposal: 3 },
      { kind: 'prediction (HEAD)', adapterValue: 2, expectedProposal: 4 },
      { kind: 'cron', adapterValue: 1, expectedProposal: 1 },
    ],
    want: { maxProposal: 4, desired: 4 },
  },
];

function specOf(metric: Metric, predictionTargetMilli: number): MetricSpec {
  if (metric.kind === 'original') return cpu50;
  if (metric.kind === 'prediction (legacy Pods metric)') return legacyPrediction;
  const [, prediction, cron] = ehpaMetrics({
    original: [cpu50],
    predictionAverageValueMilli: predictionTargetMilli,
    hasCrons: true,
  });
  return metric.kind === 'cron' ? cron! : prediction!;
}

function observationOf(metric: Metric, statusReplicas: number): MetricObservation {
  switch (metric.kind) {
    case 'original':
      return { kind: 'pods', pods: metric.pods };
    case 'prediction (legacy Pods metric)':
      return { kind: 'pods', pods: Array.from({ length: statusReplicas }, () => ready(1000, metric.perPodValueMilli)) };
    default:
      return { kind: 'total', totalMilli: metric.adapterValue * 1000, podStates: [] };
  }
}

describe("Crane's EffectiveHPA: original, prediction and cron metrics combined by the HPA", () => {
  it.each(combined)('$name', (row) => {
    const scale = { specReplicas: row.specReplicas, statusReplicas: row.statusReplicas };
    const proposals = row.metrics.map((m) =>
      proposeForMetric(specOf(m, row.predictionTargetMilli), observationOf(m, row.statusReplicas), scale),
    );
    expect(proposals.map((p) => ('replicas' in p ? p.replicas : p.error.message))).toEqual(
      row.metrics.map((m) => m.expectedProposal),
    );

    const history = emptyHistory();
    if (row.recommendations) history.recommendations = agedRecommendations(row.recommendations);
    const out = reconcileAutoscaler({
      specReplicas: row.specReplicas,
      minReplicas: row.minReplicas,
      maxReplicas: row.maxReplicas,
      proposals,
      history,
      nowMs: NOW_MS,
    });
    expect(out.metricReplicas).toBe(row.want.maxProposal);
    expect(out.desiredReplicas).toBe(row.want.desired);
    if (row.want.condition)
      expect(out.conditions).toContainEqual(
        expect.objectContaining({ type: 'ScalingLimited', reason: row.want.condition }),
      );
  });

  it('TSP not ready when the HPA is (re)built: the prediction metric is omitted, not invalid', () => {
    const metrics = ehpaMetrics({ original: [cpu50], hasCrons: true });
    expect(metrics.map((m) => m.external?.metric.name ?? m.type)).toEqual(['Resource', CRON_METRIC_NAME]);
    const ready = ehpaMetrics({ original: [cpu50], predictionAverageValueMilli: 500, hasCrons: false });
    expect(ready[1]).toEqual({
      type: 'External',
      external: { metric: { name: PREDICTION_METRIC_NAME }, target: { type: 'AverageValue', averageValue: '500m' } },
    });
  });

  it('TSP series outdated after the HPA was built: adapter errors -> metric invalid -> HPA refuses to scale down while CPU wants 3', () => {
    const proposals: MetricProposal[] = [
      { replicas: 3 },
      { error: new OutdatedTimeSeriesError(0, 600), reason: 'FailedGetExternalMetric' },
      { replicas: 1 },
    ];
    const out = reconcileAutoscaler({
      specReplicas: 4,
      minReplicas: 1,
      maxReplicas: 20,
      proposals,
      history: emptyHistory(),
      nowMs: NOW_MS,
    });
    expect(out).toMatchObject({ desiredReplicas: 4, rescale: false });
    expect(out.error).toBeInstanceOf(OutdatedTimeSeriesError);
  });

  it('prediction below one unit: HEAD truncates 0.8 cores to 0 -> proposal 0 (then max with other metrics / min clamp)', () => {
    const [, prediction] = ehpaMetrics({ original: [cpu50], predictionAverageValueMilli: 500, hasCrons: false });
    const proposal = proposeForMetric(
      prediction!,
      { kind: 'total', totalMilli: 0, podStates: [] },
      { specReplicas: 4, statusReplicas: 4 },
    );
    expect(proposal).toMatchObject({ replicas: 0 });
  });

  it('cron value (v0.8.0+): minReplicas, raised by any active cron', () => {
    expect(cronMetricValue(1, [])).toBe(1);
    expect(cronMetricValue(2, [10, 6])).toBe(10);
    expect(cronMetricValue(5, [3])).toBe(5);
  });
});

type AdapterRow = {
  id: string;
  name: string;
  predictionWindowSeconds: number;
  /** [offset seconds from now, value string] */
  samples: [number, string][];
  want:
    | { maxInWindow: number; headExternalValue: number; legacyPerPodMilliWith4AvailablePods: number }
    | { error: string };
};
type TargetRow = {
  id: string;
  name: string;
  availablePodRequestsMilli: number[];
  averageUtilization: number;
  want: { averageValueMilli: number } | { error: string };
};

const NOW_SECONDS = 1_700_000_000;

// Crane's external metric provider (prediction window maximum) and the prediction target derivation in hpa.go.
const adapterCases: AdapterRow[] = [
  {
    id: 'adapter-01',
    name: 'max over [now, now+window], inclusive; float32 parse; HEAD truncates to an integer',
    predictionWindowSeconds: 3600,
    samples: [
      [-60, '9.00000'],
      [0, '2.10000'],
      [600, '3.70000'],
      [1800, '3.95000'],
      [3600, '3.80000'],
      [3660, '12.00000'],
    ],
    want: { maxInWindow: 3.950000047683716, headExternalValue: 3, legacyPerPodMilliWith4AvailablePods: 988 },
  },
  {
    id: 'adapter-02',
    name: 'no sample inside the window',
    predictionWindowSeconds: 600,
    samples: [
      [-120, '5.0'],
      [900, '6.0'],
    ],
    want: { error: 'TimeSeries is outdated' },
  },
  {
    id: 'adapter-03',
    name: 'all values <= 0 count as no valid sample',
    predictionWindowSeconds: 600,
    samples: [
      [0, '0.00000'],
      [60, '0.00000'],
    ],
    want: { error: 'TimeSeries is outdated' },
  },
];
const targetCases: TargetRow[] = [
  {
    id: 'target-01',
    name: 'utilization -> averageValue for the prediction metric',
    availablePodRequestsMilli: [500, 500, 1000],
    averageUtilization: 60,
    want: { averageValueMilli: 400 },
  },
  {
    id: 'target-02',
    name: '300m + 400m at 50 %',
    availablePodRequestsMilli: [300, 400],
    averageUtilization: 50,
    want: { averageValueMilli: 175 },
  },
  {
    id: 'target-03',
    name: 'truncates: trunc(1000 × 70 / 100 / 3)',
    availablePodRequestsMilli: [333, 333, 334],
    averageUtilization: 70,
    want: { averageValueMilli: 233 },
  },
  {
    id: 'target-04',
    name: 'no available pods',
    availablePodRequestsMilli: [],
    averageUtilization: 50,
    want: { error: 'no pods / no available pods' },
  },
];

describe("Crane's prediction metric adapter", () => {
  it.each(adapterCases)('$name', ({ predictionWindowSeconds, samples, want }) => {
    const run = () =>
      predictionAdapterValue({
        nowSeconds: NOW_SECONDS,
        predictionWindowSeconds,
        samples: samples.map(([offset, value]) => ({ timestampSeconds: NOW_SECONDS + offset, value })),
      });
    if ('error' in want) {
      expect(run).toThrow(OutdatedTimeSeriesError);
      expect(run).toThrow(want.error);
      return;
    }
    const out = run();
    expect(out).toEqual({ maxInWindow: want.maxInWindow, externalValue: want.headExternalValue });
    expect(legacyPredictionPerPodMilli(out.maxInWindow, 4)).toBe(want.legacyPerPodMilliWith4AvailablePods);
  });

  it.each(targetCases)('$name', ({ availablePodRequestsMilli, averageUtilization, want }) => {
    const run = () => predictionAverageValueMilli(availablePodRequestsMilli, averageUtilization);
    if ('error' in want) {
      expect(run).toThrow(MetricComputationError);
      expect(run).toThrow(want.error);
      return;
    }
    expect(run()).toBe(want.averageValueMilli);
  });

  it('names an unparseable sample', () => {
    const samples = [{ timestampSeconds: NOW_SECONDS, value: 'NaN-ish' }];
    expect(() => predictionAdapterValue({ nowSeconds: NOW_SECONDS, predictionWindowSeconds: 60, samples })).toThrow(
      'samples[0].value',
    );
  });
});
