import type { MetricSpec } from '@flotilla/api';
import {
  NoMemberReplicasError,
  observeMembers,
  proposeForMetric,
  type MemberWorkload,
  type MetricProposal,
  type ScaleReplicas,
} from '@flotilla/hpa-math';

export interface ObservedInput {
  /** The target's copies in the member clusters, with one usage sample per pod (the centralized FederatedHPA read). */
  members: readonly MemberWorkload[];
  /** Object and External metrics: the value (or sum of series) in milli-units, by index into `spec.metrics`. */
  totalsMilli?: ReadonlyArray<number | undefined>;
}

/**
 * The EffectiveHPA's own metrics over the member clusters, as Karmada's centralized FederatedHPA reads them: the
 * pods of every Ready cluster pooled, the proposal calibrated back to template replicas. A metric without data is
 * an invalid proposal with Kubernetes' `FailedGet…Metric` reason.
 */
export function observedProposals(
  metrics: readonly MetricSpec[],
  templateSpecReplicas: number,
  observed: ObservedInput,
  tolerance?: number,
): MetricProposal[] {
  let pooled;
  try {
    pooled = observeMembers(templateSpecReplicas, observed.members);
  } catch (err) {
    if (!(err instanceof NoMemberReplicasError)) throw err;
    return metrics.map((m) => ({ metric: `${m.type} metric`, error: err, reason: `FailedGet${m.type}Metric` }));
  }
  const scale: ScaleReplicas = {
    specReplicas: templateSpecReplicas,
    statusReplicas: Math.round(pooled.statusReplicas / pooled.calibration),
    calibration: pooled.calibration,
    ...(tolerance === undefined ? {} : { tolerance }),
  };
  const podStates = pooled.pods.map((p) => p.state);
  return metrics.map((m, i) => {
    const perPod = m.type === 'Resource' || m.type === 'ContainerResource' || m.type === 'Pods';
    if (perPod) return proposeForMetric(m, { kind: 'pods', pods: pooled.pods }, scale);
    const total = observed.totalsMilli?.[i];
    if (total === undefined) {
      return {
        metric: `${m.type} metric`,
        error: new Error(`no value for spec.metrics[${i}]`),
        reason: `FailedGet${m.type}Metric`,
      };
    }
    return proposeForMetric(m, { kind: 'total', totalMilli: total, podStates }, scale);
  });
}
