import { formatTime, type Condition, type EffectiveHorizontalPodAutoscaler, type MetricSpec } from '@flotilla/api';
import {
  emptyHistory,
  reconcileAutoscaler,
  type AutoscalerHistory,
  type HpaCondition,
  type MetricProposal,
} from '@flotilla/hpa-math';
import type { ActiveCron } from '@flotilla/prediction';
import { cronProposal } from './cron-proposal.js';
import { observedProposals, type ObservedInput } from './observed-proposals.js';
import { predictionEnabled, predictionProposal, type Forecast } from './prediction-proposal.js';
import { EHPA_SOURCES, hasReplicas, type EhpaSource, type SourceProposal } from './sources.js';

export interface TemplateReplicas {
  /** The resource template's `spec.replicas` (what Auto writes; the scheduler divides it). */
  specReplicas: number;
  /** Replicas running over the member clusters (the template's aggregated `status.replicas`). */
  statusReplicas: number;
}

export interface EhpaDecisionInput {
  ehpa: EffectiveHorizontalPodAutoscaler;
  template: TemplateReplicas;
  observed: ObservedInput;
  forecast?: Forecast;
  now: Date;
  /** The HPA bookkeeping of the previous round (recommendations, scale events); unset on the first round. */
  history?: AutoscalerHistory;
  /** Zone of crons with `timezone: Local`. */
  controllerZone?: string;
  tolerance?: number;
  downscaleStabilizationWindowSeconds?: number;
}

/** A source's proposal as the status shows it. */
export type ProposalStatus =
  | { replicas: number; metricValue?: number; detail?: string }
  | { reason: string; message: string };

export interface EhpaStatusPatch {
  expectReplicas: number;
  currentReplicas: number;
  lastScaleTime?: string;
  conditions: Array<Required<Pick<Condition, 'type' | 'status' | 'reason' | 'message'>>>;
  /** Flotilla's addition: each source's current proposal, and which one the maximum came from. */
  proposals: Partial<Record<EhpaSource, ProposalStatus>>;
  winningSource: EhpaSource | null;
  activeCrons?: ActiveCron[];
  /** When a cron window next starts or ends (RFC 3339); null when none will. */
  nextCronBoundary?: string | null;
  /** The forecast's maximum over the prediction window (before the adapter truncates it). */
  predictionWindowMax?: number | null;
  /**
   * Flotilla's addition, set by the controller (it needs the history): how far the forecasts for the last prediction
   * window were from the usage then observed; null while nothing could be compared.
   */
  forecastError?: EhpaForecastErrorStatus | null;
}

/** The forecast error as the status shows it. */
export interface EhpaForecastErrorStatus {
  /** Mean absolute percentage error as a fraction, rounded to 0.001 (0.083 is 8.3 %). */
  mape: number;
  /** The window compared: the last predictionWindowSeconds. */
  windowSeconds: number;
  /** The instants compared (with both a forecast and an observation). */
  samples: number;
}

export interface EhpaScaledEvent {
  type: 'EffectiveHpaScaled';
  reason: 'SuccessfulRescale' | 'SpecificReplicas';
  source: EhpaSource | 'specificReplicas';
  fromReplicas: number;
  toReplicas: number;
  message: string;
}

export interface EhpaDecision {
  /** What the HPA wants (Crane's `expectReplicas`). */
  desiredReplicas: number;
  /** The replicas to write into the template's `spec.replicas`; undefined when it stays as is. */
  scaleTo?: number;
  winningSource: EhpaSource | null;
  proposals: SourceProposal[];
  statusPatch: EhpaStatusPatch;
  events: EhpaScaledEvent[];
  history: AutoscalerHistory;
}

const READY = 'EffectiveHorizontalPodAutoscalerReady';

function toStatus(p: SourceProposal): ProposalStatus {
  if (!hasReplicas(p)) return { reason: p.reason, message: p.message };
  return {
    replicas: p.replicas,
    ...(p.metricValue === undefined ? {} : { metricValue: p.metricValue }),
    ...(p.detail ? { detail: p.detail } : {}),
  };
}

/** The observed metrics summarised as one source: their maximum valid proposal, or the first reason none was valid. */
function observedSummary(proposals: readonly MetricProposal[]): SourceProposal | undefined {
  if (proposals.length === 0) return undefined;
  let best: number | undefined;
  let detail: string | undefined;
  for (const p of proposals) {
    if ('replicas' in p && (best === undefined || p.replicas > best)) {
      best = p.replicas;
      detail = p.metric;
    }
  }
  if (best !== undefined) return { source: 'observed', replicas: best, ...(detail ? { detail } : {}) };
  const first = proposals[0] as { error: Error; reason?: string };
  return { source: 'observed', reason: first.reason ?? 'FailedGetMetric', message: first.error.message };
}

const asMetricProposal = (p: SourceProposal): MetricProposal =>
  hasReplicas(p)
    ? { metric: p.source, replicas: p.replicas }
    : { metric: p.source, error: new Error(p.message), reason: p.reason };

/**
 * One reconcile of an EffectiveHPA, pure (Crane's `effective_hpa_controller.go` with its managed HPA folded in).
 * 1. A target at 0 replicas with minReplicas > 0 is not scaled (Ready=False/ScalingDisabled).
 * 2. Each source becomes HPA proposals: the observed metrics over the member clusters, the forecast's window maximum
 *    (only while the prediction is ready) and the cron metric. The HPA math takes the largest valid one, then
 *    clamps to [min, max] and applies behavior and stabilization.
 * 3. Auto writes the result into the template. Preview computes it against the running replicas (Crane's
 *    Substitute) and only reports it; `specificReplicas` pins the template instead.
 */
export function decideEffectiveHpa(input: EhpaDecisionInput): EhpaDecision {
  const spec = input.ehpa.spec!;
  const { template, now } = input;
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const preview = spec.scaleStrategy === 'Preview';
  const minReplicas = spec.minReplicas ?? 1;
  const history = input.history ?? emptyHistory();
  const at = formatTime(now);

  // 1. Crane checks the scale first: nothing is reconciled while the target is scaled to zero by hand.
  if (template.specReplicas === 0 && minReplicas !== 0) {
    return {
      desiredReplicas: 0,
      winningSource: null,
      proposals: [],
      statusPatch: {
        expectReplicas: 0,
        currentReplicas: 0,
        conditions: [
          {
            type: 'Ready',
            status: 'False',
            reason: 'ScalingDisabled',
            message: 'Scaling is disabled because the target has 0 replicas',
          },
        ],
        proposals: {},
        winningSource: null,
      },
      events: [],
      history,
    };
  }

  // 2. In Preview the HPA targets the Substitute, which mirrors the running replicas.
  const hpaCurrent = preview ? template.statusReplicas : template.specReplicas;
  const metrics: readonly MetricSpec[] = spec.metrics ?? [];
  const observed = observedProposals(metrics, hpaCurrent, input.observed, input.tolerance);
  const prediction = predictionProposal({
    spec,
    forecast: input.forecast,
    nowSeconds,
    members: input.observed.members,
    statusReplicas: template.statusReplicas,
    ...(input.tolerance === undefined ? {} : { tolerance: input.tolerance }),
  });
  const cron = cronProposal(spec, now, input.controllerZone);
  const sources = [observedSummary(observed), prediction, cron].filter((p): p is SourceProposal => p !== undefined);

  // Crane leaves a not-ready prediction out of the HPA rather than making it an invalid metric.
  const hpaProposals: MetricProposal[] = [
    ...observed,
    ...(prediction && hasReplicas(prediction) ? [asMetricProposal(prediction)] : []),
    ...(cron ? [asMetricProposal(cron)] : []),
  ];
  const result = reconcileAutoscaler({
    specReplicas: hpaCurrent,
    minReplicas,
    maxReplicas: spec.maxReplicas,
    ...(spec.behavior ? { behavior: spec.behavior } : {}),
    proposals: hpaProposals,
    history,
    nowMs: now.getTime(),
    ...(input.downscaleStabilizationWindowSeconds === undefined
      ? {}
      : { downscaleStabilizationWindowSeconds: input.downscaleStabilizationWindowSeconds }),
  });

  let winningSource: EhpaSource | null = null;
  if (result.metricReplicas !== undefined) {
    const candidates = sources.filter(hasReplicas);
    const best = Math.max(...candidates.map((p) => p.replicas));
    winningSource = EHPA_SOURCES.find((s) => candidates.some((p) => p.source === s && p.replicas === best)) ?? null;
  }

  // 3. Who writes the template.
  const events: EhpaScaledEvent[] = [];
  let scaleTo: number | undefined;
  let currentReplicas = template.statusReplicas;
  if (!preview && result.rescale) {
    scaleTo = result.desiredReplicas;
    const why = result.rescaleReason ?? `${winningSource ?? 'no source'} proposed ${result.metricReplicas ?? '-'}`;
    events.push({
      type: 'EffectiveHpaScaled',
      reason: 'SuccessfulRescale',
      source: winningSource ?? 'observed',
      fromReplicas: template.specReplicas,
      toReplicas: scaleTo,
      message: `New size: ${scaleTo}; reason: ${why}`,
    });
  } else if (preview && spec.specificReplicas !== undefined && spec.specificReplicas !== template.specReplicas) {
    // Crane compares with the running replicas; the written spec is compared here so that pods still starting
    // do not make every round write (and announce) the same pin again.
    scaleTo = spec.specificReplicas;
    currentReplicas = spec.specificReplicas;
    events.push({
      type: 'EffectiveHpaScaled',
      reason: 'SpecificReplicas',
      source: 'specificReplicas',
      fromReplicas: template.specReplicas,
      toReplicas: scaleTo,
      message: `New size: ${scaleTo}; reason: Preview with specificReplicas`,
    });
  }

  const conditions: EhpaStatusPatch['conditions'] = [
    { type: 'Ready', status: 'True', reason: READY, message: 'Effective HPA is ready' },
  ];
  if (predictionEnabled(spec)) {
    const readiness = input.forecast?.readiness;
    conditions.push(
      readiness?.ready
        ? { type: 'PredictionReady', status: 'True', reason: readiness.reason, message: readiness.message }
        : {
            type: 'PredictionReady',
            status: 'False',
            reason: readiness?.reason ?? 'PredictPartial',
            message: readiness?.message ?? 'the prediction has not been computed yet',
          },
    );
  }
  conditions.push(
    ...result.conditions.map((c: HpaCondition) => ({ ...c, reason: c.reason ?? '', message: c.message ?? '' })),
  );

  const statusPatch: EhpaStatusPatch = {
    expectReplicas: result.desiredReplicas,
    currentReplicas,
    ...(scaleTo === undefined ? {} : { lastScaleTime: at }),
    conditions,
    proposals: Object.fromEntries(sources.map((p) => [p.source, toStatus(p)])),
    winningSource,
    ...(cron
      ? { activeCrons: cron.activeCrons, nextCronBoundary: cron.nextBoundary ? formatTime(cron.nextBoundary) : null }
      : {}),
    ...(prediction ? { predictionWindowMax: prediction.windowMax ?? null } : {}),
  };
  return {
    desiredReplicas: result.desiredReplicas,
    ...(scaleTo === undefined ? {} : { scaleTo }),
    winningSource,
    proposals: sources,
    statusPatch,
    events,
    history: result.history,
  };
}
