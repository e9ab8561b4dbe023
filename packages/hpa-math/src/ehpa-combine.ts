import type { MetricSpec } from '@flotilla/api';
import { MetricComputationError, OutdatedTimeSeriesError } from './errors.js';

/** The External metric names Crane's EffectiveHPA adds to the HPA it manages. */
export const PREDICTION_METRIC_NAME = 'crane_autoscaling_prediction';
export const CRON_METRIC_NAME = 'crane_autoscaling_cron';

/**
 * Crane's prediction target for a Utilization metric (`pkg/controller/ehpa/hpa.go`): the utilization turned into
 * an AverageValue over the currently available pods, `trunc(Σ requests × U / 100 / pods)` milli-units.
 */
export function predictionAverageValueMilli(
  availablePodRequestsMilli: readonly number[],
  averageUtilization: number,
): number {
  if (availablePodRequestsMilli.length === 0) {
    throw new MetricComputationError(
      'NoPods',
      'no pods / no available pods to derive the prediction target from',
      'availablePodRequestsMilli',
    );
  }
  const total = availablePodRequestsMilli.reduce((s, r) => s + r, 0);
  return Math.trunc((total * averageUtilization) / 100 / availablePodRequestsMilli.length);
}

export interface PredictionSample {
  timestampSeconds: number;
  /** The TimeSeriesPrediction's value string, e.g. "3.95000". */
  value: string;
}

export interface PredictionAdapterValue {
  /** The highest forecast in [now, now + window], as a float32 (Crane parses with 32-bit precision). */
  maxInWindow: number;
  /** What the HEAD adapter returns: whole units, truncated (3.95 cores -> 3). */
  externalValue: number;
}

/**
 * Crane's external metric provider for the prediction metric: the maximum forecast of the prediction window
 * (both ends inclusive) is what makes EffectiveHPA scale up early and down late. Non-positive samples do not count.
 */
export function predictionAdapterValue(input: {
  samples: readonly PredictionSample[];
  nowSeconds: number;
  predictionWindowSeconds: number;
}): PredictionAdapterValue {
  const end = input.nowSeconds + input.predictionWindowSeconds;
  let max = 0;
  input.samples.forEach((s, i) => {
    if (s.timestampSeconds < input.nowSeconds || s.timestampSeconds > end) return;
    const v = Math.fround(Number(s.value));
    if (Number.isNaN(v))
      throw new MetricComputationError(
        'NoUsableMetrics',
        `not a number: ${JSON.stringify(s.value)}`,
        `samples[${i}].value`,
      );
    if (v > max) max = v;
  });
  if (max <= 0) throw new OutdatedTimeSeriesError(input.nowSeconds, end);
  return { maxInWindow: max, externalValue: Math.trunc(max) };
}

/**
 * Crane up to v0.7.0 served the forecast as the Pods metric `crane_pod_cpu_usage`: the window maximum spread over
 * the available pods, `round(max × 1000 / pods)` milli per pod.
 */
export function legacyPredictionPerPodMilli(maxInWindow: number, availablePods: number): number {
  if (availablePods <= 0) throw new MetricComputationError('NoPods', 'no available pods', 'availablePods');
  return Math.round((maxInWindow * 1000) / availablePods);
}

/** Crane's cron metric value (v0.8.0+): minReplicas, raised by the target replicas of every active cron. */
export function cronMetricValue(minReplicas: number, activeCronTargetReplicas: readonly number[]): number {
  return Math.max(minReplicas, ...activeCronTargetReplicas);
}

const externalAverageValue = (name: string, averageValue: string): MetricSpec => ({
  type: 'External',
  external: { metric: { name }, target: { type: 'AverageValue', averageValue } },
});

/**
 * The metrics of the HPA an EffectiveHPA manages: its own metrics, then the prediction metric while the
 * TimeSeriesPrediction is Ready (left out, not invalid, otherwise), then one cron metric with target 1 when crons
 * exist. The HPA takes the maximum of their proposals, so the original metrics stay a safety net.
 */
export function ehpaMetrics(input: {
  original: readonly MetricSpec[];
  /** The prediction target in milli-units; undefined while the prediction is not Ready. */
  predictionAverageValueMilli?: number;
  hasCrons: boolean;
}): MetricSpec[] {
  const metrics = [...input.original];
  if (input.predictionAverageValueMilli !== undefined) {
    metrics.push(externalAverageValue(PREDICTION_METRIC_NAME, `${input.predictionAverageValueMilli}m`));
  }
  if (input.hasCrons) metrics.push(externalAverageValue(CRON_METRIC_NAME, '1'));
  return metrics;
}
