import { parseQuantity, type EffectiveHorizontalPodAutoscalerSpec, type MetricSpec } from '@flotilla/api';
import {
  MetricComputationError,
  OutdatedTimeSeriesError,
  PREDICTION_METRIC_NAME,
  predictionAdapterValue,
  predictionAverageValueMilli,
  proposeForMetric,
  type MemberWorkload,
} from '@flotilla/hpa-math';
import { DEFAULT_PREDICTION_WINDOW_SECONDS, PREDICT_PARTIAL, type PredictionReadiness } from '@flotilla/prediction';
import type { SourceProposal } from './sources.js';

/** What the controller knows of the forecast: its samples and why it is (not) ready. */
export interface Forecast {
  samples: ReadonlyArray<readonly [number, number]>;
  readiness: PredictionReadiness;
}

/** Crane's `IsEHPAPredictionEnabled`: prediction, its window and its algorithm are all set. */
export function predictionEnabled(spec: EffectiveHorizontalPodAutoscalerSpec): boolean {
  const p = spec.prediction;
  return p?.predictionWindowSeconds !== undefined && p.predictionAlgorithm !== undefined;
}

/**
 * The metric the forecast stands for. Flotilla's history is the workload's CPU usage in cores, so only a cpu
 * Resource or ContainerResource metric gets a prediction metric (Crane predicts each metric from its own query).
 */
export function predictedMetric(spec: EffectiveHorizontalPodAutoscalerSpec): MetricSpec | undefined {
  return spec.metrics?.find(
    (m) =>
      (m.type === 'Resource' && m.resource?.name === 'cpu') ||
      (m.type === 'ContainerResource' && m.containerResource?.name === 'cpu'),
  );
}

/** Crane's prediction target (`hpa.go`): a utilization turned into per-pod milli-cores, or the averageValue as is. */
function targetAverageValueMilli(metric: MetricSpec, members: readonly MemberWorkload[]): number {
  const target = (metric.resource ?? metric.containerResource)!.target;
  if (target.type === 'Utilization' && target.averageUtilization !== undefined) {
    const requests = members
      .filter((m) => m.clusterReady)
      .flatMap((m) => m.pods)
      .filter((p) => p.state === 'ready' && p.requestMilli !== undefined)
      .map((p) => p.requestMilli!);
    return predictionAverageValueMilli(requests, target.averageUtilization);
  }
  const q = target.averageValue;
  if (q === undefined) throw new MetricComputationError('InvalidTarget', 'Required value', 'target.averageValue');
  return milliOf(q);
}

/** Quantity.MilliValue(), as the HPA math reads targets. */
const milliOf = (q: string | number): number => Math.ceil(parseQuantity(q) * 1000 - 1e-6);

export interface PredictionProposalInput {
  spec: EffectiveHorizontalPodAutoscalerSpec;
  forecast: Forecast | undefined;
  nowSeconds: number;
  members: readonly MemberWorkload[];
  statusReplicas: number;
  tolerance?: number;
}

/**
 * The prediction source as Crane v0.8+ feeds it to the HPA: an External AverageValue metric whose value is the
 * forecast's maximum over [now, now + predictionWindowSeconds], truncated to whole units by the adapter. Undefined
 * when prediction is off or no metric is predictable; a not-ready forecast is a proposal without replicas, so the
 * other sources decide (Crane leaves the metric out of the HPA).
 */
export function predictionProposal(
  input: PredictionProposalInput,
): (SourceProposal & { windowMax?: number }) | undefined {
  const { spec, forecast } = input;
  if (!predictionEnabled(spec)) return undefined;
  const metric = predictedMetric(spec);
  if (!metric) return undefined;
  if (!forecast?.readiness.ready) {
    return {
      source: 'prediction',
      reason: forecast?.readiness.reason ?? PREDICT_PARTIAL,
      message: forecast?.readiness.message ?? 'no forecast yet',
    };
  }
  const window = spec.prediction?.predictionWindowSeconds ?? DEFAULT_PREDICTION_WINDOW_SECONDS;
  try {
    const value = predictionAdapterValue({
      samples: forecast.samples.map(([t, v]) => ({ timestampSeconds: t, value: v.toFixed(5) })),
      nowSeconds: input.nowSeconds,
      predictionWindowSeconds: window,
    });
    const averageValueMilli = targetAverageValueMilli(metric, input.members);
    const external: MetricSpec = {
      type: 'External',
      external: {
        metric: { name: PREDICTION_METRIC_NAME },
        target: { type: 'AverageValue', averageValue: `${averageValueMilli}m` },
      },
    };
    const p = proposeForMetric(
      external,
      { kind: 'total', totalMilli: value.externalValue * 1000, podStates: [] },
      {
        specReplicas: input.statusReplicas,
        statusReplicas: input.statusReplicas,
        ...(input.tolerance === undefined ? {} : { tolerance: input.tolerance }),
      },
    );
    if (!('replicas' in p))
      return { source: 'prediction', reason: p.reason ?? 'FailedGetExternalMetric', message: p.error.message };
    return {
      source: 'prediction',
      replicas: p.replicas,
      metricValue: value.externalValue,
      windowMax: value.maxInWindow,
      detail:
        `forecast maximum ${value.maxInWindow.toFixed(3)} over the next ${window}s ` +
        `against ${averageValueMilli}m per pod`,
    };
  } catch (err) {
    if (err instanceof OutdatedTimeSeriesError)
      return { source: 'prediction', reason: 'OutdatedTimeSeries', message: err.message };
    if (err instanceof MetricComputationError)
      return { source: 'prediction', reason: 'FailedGetExternalMetric', message: err.message };
    throw err;
  }
}
