import type { Condition, HpaBehavior } from '@flotilla/api';
import { limitByBehaviorRate, recordScaleEvent, resolveBehavior, type ScaleEvents } from './behavior.js';
import { clampWithoutBehavior, type LimitReason } from './normalize.js';
import {
  DEFAULT_DOWNSCALE_STABILIZATION_SECONDS,
  stabilizeDownscale,
  stabilizeWithBehavior,
  type Recommendation,
} from './stabilization.js';

/** One metric's outcome: a replica proposal, or the error that made the metric invalid this round. */
export type MetricProposal = { metric?: string; replicas: number } | { metric?: string; error: Error; reason?: string };

/** The condition fields Kubernetes sets on the HPA status (the caller stamps `lastTransitionTime`). */
export type HpaCondition = Pick<Condition, 'type' | 'status' | 'reason' | 'message'> & {
  type: 'AbleToScale' | 'ScalingActive' | 'ScalingLimited';
};

/** What one HPA remembers between reconciles (Kubernetes keeps it in the controller's memory, per HPA key). */
export interface AutoscalerHistory {
  /** Undefined until the first reconcile, which seeds it with the current replicas. */
  recommendations?: Recommendation[];
  scaleEvents: ScaleEvents;
}

export interface ReconcileInput {
  /** The scale target's `spec.replicas`. */
  specReplicas: number;
  /** Unset means 1, as autoscaling/v2 defaults it. */
  minReplicas?: number;
  maxReplicas: number;
  behavior?: HpaBehavior;
  /** One entry per `spec.metrics` item; not looked at when the replicas are out of [min, max]. */
  proposals: readonly MetricProposal[];
  history: AutoscalerHistory;
  nowMs: number;
  /** The controller's downscale window (no-behavior window and default scale-down window). */
  downscaleStabilizationWindowSeconds?: number;
}

export interface ReconcileResult {
  desiredReplicas: number;
  /** False when the scale is left alone (no change, scaling disabled, or invalid metrics). */
  rescale: boolean;
  /** Why the replicas were clamped without looking at metrics. */
  rescaleReason?: string;
  /** The first metric error, when it stopped this round (the scale is left alone). */
  error?: Error;
  /** The first metric error, when it was skipped because the valid metrics scale up. */
  skippedMetricError?: Error;
  conditions: HpaCondition[];
  /** The state to pass to the next reconcile. */
  history: AutoscalerHistory;
  /** The maximum valid metric proposal, before normalisation. */
  metricReplicas?: number;
}

const LIMIT_MESSAGES: Record<LimitReason, string> = {
  DesiredWithinRange: 'the desired count is within the acceptable range',
  TooFewReplicas: 'the desired replica count is less than the minimum replica count',
  TooManyReplicas: 'the desired replica count is more than the maximum replica count',
  ScaleUpLimit: 'the desired replica count is increasing faster than the maximum scale rate',
  ScaleDownLimit: 'the desired replica count is decreasing faster than the maximum scale rate',
};

const STABILIZATION_MESSAGES = {
  ReadyForNewScale: 'recommended size matches current size',
  ScaleUpStabilized: 'recent recommendations were lower than current one, applying the lowest recent recommendation',
  ScaleDownStabilized:
    'recent recommendations were higher than current one, applying the highest recent recommendation',
} as const;

/**
 * Kubernetes' `computeReplicasForMetrics`: the maximum valid proposal. An invalid metric is tolerated only when the
 * valid ones scale up; otherwise (or when all are invalid) nothing changes this round (Kubernetes 1.21+).
 */
export function maxMetricProposal(
  proposals: readonly MetricProposal[],
  specReplicas: number,
): { replicas: number; metric?: string; error?: Error; reason?: string } | { error: Error; reason: string } {
  let best: { replicas: number; metric?: string } | undefined;
  let firstError: { error: Error; reason: string } | undefined;
  for (const p of proposals) {
    if ('error' in p) {
      firstError ??= { error: p.error, reason: p.reason ?? 'FailedGetMetric' };
      continue;
    }
    if (best === undefined || p.replicas > best.replicas) best = { replicas: p.replicas, metric: p.metric };
  }
  if (best === undefined || (firstError && best.replicas < specReplicas)) {
    return firstError ?? { error: new Error('the HPA has no metrics'), reason: 'FailedGetMetric' };
  }
  return { ...best, ...firstError };
}

/**
 * One `reconcileAutoscaler` pass of Kubernetes' HPA controller, pure: the history comes in and goes out.
 * 1. A target at 0 replicas with minReplicas > 0 is not autoscaled; out-of-range replicas go to the nearest bound
 *    without metrics.
 * 2. Otherwise the maximum metric proposal is stabilized and limited: by the downscale window and the
 *    max(2 × current, 4) cap without `behavior`, by both windows and the rate policies with it.
 * 3. A rescale is recorded as a scale event when `behavior` is set (the rate policies read them).
 */
export function reconcileAutoscaler(input: ReconcileInput): ReconcileResult {
  const current = input.specReplicas;
  const minReplicas = input.minReplicas ?? 1;
  const window = input.downscaleStabilizationWindowSeconds ?? DEFAULT_DOWNSCALE_STABILIZATION_SECONDS;
  const recommendations = input.history.recommendations ?? [{ replicas: current, atMs: input.nowMs }];
  const history: AutoscalerHistory = { ...input.history, recommendations };
  const conditions: HpaCondition[] = [];
  const finish = (desired: number, extra: Partial<ReconcileResult> = {}): ReconcileResult => {
    const rescale = extra.rescale ?? desired !== current;
    if (rescale) {
      const succeeded: HpaCondition = {
        type: 'AbleToScale',
        status: 'True',
        reason: 'SucceededRescale',
        message: `the HPA controller was able to update the target scale to ${desired}`,
      };
      const at = conditions.findIndex((c) => c.type === 'AbleToScale');
      if (at >= 0) conditions[at] = succeeded;
      else conditions.unshift(succeeded);
      if (input.behavior) {
        history.scaleEvents = recordScaleEvent(
          history.scaleEvents,
          resolveBehavior(input.behavior, window),
          current,
          desired,
          input.nowMs,
        );
      }
    }
    return { desiredReplicas: desired, rescale, conditions, history, ...extra };
  };

  if (current === 0 && minReplicas !== 0) {
    conditions.push({
      type: 'ScalingActive',
      status: 'False',
      reason: 'ScalingDisabled',
      message: 'scaling is disabled since the replica count of the target is zero',
    });
    return finish(0, { rescale: false });
  }
  if (current > input.maxReplicas)
    return finish(input.maxReplicas, { rescaleReason: 'Current number of replicas above Spec.MaxReplicas' });
  if (current < minReplicas)
    return finish(minReplicas, { rescaleReason: 'Current number of replicas below Spec.MinReplicas' });

  const best = maxMetricProposal(input.proposals, current);
  if (!('replicas' in best)) {
    conditions.push({
      type: 'ScalingActive',
      status: 'False',
      reason: best.reason,
      message: `the HPA was unable to compute the replica count: ${best.error.message}`,
    });
    return finish(current, { rescale: false, error: best.error });
  }
  conditions.push({
    type: 'ScalingActive',
    status: 'True',
    reason: 'ValidMetricFound',
    message: `the HPA was able to successfully calculate a replica count${best.metric ? ` from ${best.metric}` : ''}`,
  });
  const proposed = best.replicas;

  let stabilized;
  let limited;
  if (!input.behavior) {
    stabilized = stabilizeDownscale({
      recommendations,
      proposedReplicas: proposed,
      windowSeconds: window,
      nowMs: input.nowMs,
    });
    limited = clampWithoutBehavior({
      currentReplicas: current,
      desiredReplicas: stabilized.replicas,
      minReplicas,
      maxReplicas: input.maxReplicas,
    });
  } else {
    const behavior = resolveBehavior(input.behavior, window);
    stabilized = stabilizeWithBehavior({
      recommendations,
      currentReplicas: current,
      proposedReplicas: proposed,
      scaleUpWindowSeconds: behavior.scaleUp.stabilizationWindowSeconds,
      scaleDownWindowSeconds: behavior.scaleDown.stabilizationWindowSeconds,
      nowMs: input.nowMs,
    });
    limited = limitByBehaviorRate({
      currentReplicas: current,
      desiredReplicas: stabilized.replicas,
      minReplicas,
      maxReplicas: input.maxReplicas,
      behavior,
      events: input.history.scaleEvents,
      nowMs: input.nowMs,
    });
  }
  history.recommendations = stabilized.recommendations;
  conditions.unshift({
    type: 'AbleToScale',
    status: 'True',
    reason: stabilized.reason,
    message: STABILIZATION_MESSAGES[stabilized.reason],
  });
  conditions.push({
    type: 'ScalingLimited',
    // Without behavior Kubernetes compares against the metric proposal, with behavior against the stabilized one.
    status: limited.replicas === (input.behavior ? stabilized.replicas : proposed) ? 'False' : 'True',
    reason: limited.reason,
    message: LIMIT_MESSAGES[limited.reason],
  });
  return finish(limited.replicas, {
    metricReplicas: best.replicas,
    ...(best.error ? { skippedMetricError: best.error } : {}),
  });
}

/** A fresh history: no recommendation yet (the first reconcile seeds one), no scale events. */
export function emptyHistory(): AutoscalerHistory {
  return { scaleEvents: { scaleUp: [], scaleDown: [] } };
}
