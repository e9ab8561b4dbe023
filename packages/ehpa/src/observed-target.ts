import { DEFAULT_DSP_CONFIG, resolveDspConfig, type EffectiveHorizontalPodAutoscalerSpec } from '@flotilla/api';
import { memberPods, type MemberReport } from '@flotilla/hpa-math';
import { PredictionReasons } from '@flotilla/prediction';
import type { TemplateReplicas } from './decide-effective-hpa.js';
import type { ObservedInput } from './observed-proposals.js';
import { predictionEnabled, type Forecast } from './prediction-proposal.js';

/**
 * The target of an EffectiveHPA over its member clusters, as `decideEffectiveHpa` reads it: each member's pods (the
 * centralized FederatedHPA's pooled read) and the template's replicas, the running ones summed over the Ready
 * clusters (the template's own spec.replicas while no member reports).
 */
export function observedTarget(
  specReplicas: number,
  reports: readonly MemberReport[],
): { template: TemplateReplicas; observed: ObservedInput } {
  const members = reports.map((m) => ({
    cluster: m.cluster,
    clusterReady: m.clusterReady,
    specReplicas: m.specReplicas,
    statusReplicas: m.readyReplicas,
    pods: memberPods(m),
  }));
  const running = members.filter((m) => m.clusterReady).reduce((s, m) => s + m.statusReplicas, 0);
  return {
    template: { specReplicas, statusReplicas: members.length ? Math.round(running) : specReplicas },
    observed: { members },
  };
}

/** How much usage history the EffectiveHPAs read at most: the longest historyLength in use plus Crane's extra hour. */
export function historyRetentionMs(specs: Iterable<EffectiveHorizontalPodAutoscalerSpec>): number {
  let needed = 0;
  for (const spec of specs) {
    if (!predictionEnabled(spec)) continue;
    const { config } = resolveDspConfig(spec.prediction?.predictionAlgorithm?.dsp);
    needed = Math.max(needed, (config.historyLengthSeconds + 3600) * 1000);
  }
  return needed;
}

/**
 * The forecast when the history source failed: not ready, as Crane's TimeSeriesPrediction reports it, with the
 * interval it is retried at. The other sources go on.
 */
export function historyUnavailable(spec: EffectiveHorizontalPodAutoscalerSpec, error: string): Forecast {
  const interval = resolveDspConfig(spec.prediction?.predictionAlgorithm?.dsp).config.sampleIntervalSeconds;
  return {
    samples: [],
    readiness: {
      ready: false,
      reason: PredictionReasons.NoHistory,
      message: `the history source failed (${error}); retried every ${interval || DEFAULT_DSP_CONFIG.sampleIntervalSeconds}s`,
    },
  };
}
