import type { FederatedHPASpec, MetricSpec } from '@flotilla/api';
import {
  memberPods,
  MetricComputationError,
  NoMemberReplicasError,
  observeMembers,
  reconcileAutoscaler,
  resourceUtilizationReplicas,
  type AutoscalerHistory,
  type HpaCondition,
  type MemberReport,
  type MemberWorkload,
  type MetricProposal,
} from '@flotilla/hpa-math';

export interface CentralizedInput {
  spec: FederatedHPASpec;
  /** The resource template's spec.replicas. */
  templateReplicas: number;
  members: readonly MemberReport[];
  history: AutoscalerHistory;
  nowMs: number;
  downscaleStabilizationWindowSeconds?: number;
}

export interface CentralizedDecision {
  desiredReplicas: number;
  rescale: boolean;
  conditions: HpaCondition[];
  history: AutoscalerHistory;
  /** Σ member spec.replicas / template replicas, when the members could be read. */
  calibration?: number;
  /** CPU utilisation over the ready pods of the Ready clusters, in percent. */
  utilization?: number;
  /** The member clusters counted (Ready ones). */
  clusters: string[];
}

const isCpuUtilization = (m: MetricSpec) =>
  m.type === 'Resource' && m.resource?.name === 'cpu' && m.resource.target.type === 'Utilization';

/**
 * Karmada's shipped FederatedHPA (`federatedhpa_controller.go`), pure: the pods of the Ready member clusters are
 * read as one workload, the replica calculator's proposal is brought back to template units by the calibration
 * (Σ member spec.replicas / template replicas), and Kubernetes' `reconcileAutoscaler` (tolerance, missing and
 * unready pods, scale-up limit, behavior, stabilization, min/max) gives the template's replicas.
 */
export function decideCentralized(input: CentralizedInput): CentralizedDecision {
  const { spec } = input;
  const workloads: MemberWorkload[] = input.members.map((m) => ({
    cluster: m.cluster,
    clusterReady: m.clusterReady,
    specReplicas: m.specReplicas,
    statusReplicas: m.readyReplicas + m.pendingReplicas,
    pods: memberPods(m),
  }));
  let proposals: MetricProposal[];
  let calibration: number | undefined;
  let utilization: number | undefined;
  let clusters: string[] = input.members.filter((m) => m.clusterReady).map((m) => m.cluster);
  try {
    const observed = observeMembers(Math.max(1, input.templateReplicas), workloads);
    calibration = observed.calibration;
    clusters = observed.clusters;
    proposals = (spec.metrics ?? []).map((metric, i): MetricProposal => {
      const name = metric.resource ? `${metric.resource.name} resource` : metric.type;
      if (!isCpuUtilization(metric)) {
        return {
          metric: name,
          error: new MetricComputationError('NoMetrics', 'member clusters report cpu usage only', `spec.metrics[${i}]`),
          reason: 'FailedGetResourceMetric',
        };
      }
      try {
        const out = resourceUtilizationReplicas({
          currentReplicas: input.templateReplicas,
          pods: observed.pods,
          resource: 'cpu',
          targetUtilization: metric.resource!.target.averageUtilization ?? 80,
          calibration: observed.calibration,
        });
        utilization = out.utilization;
        return { metric: name, replicas: out.replicas };
      } catch (err) {
        if (!(err instanceof MetricComputationError)) throw err;
        return { metric: name, error: err, reason: 'FailedGetResourceMetric' };
      }
    });
  } catch (err) {
    if (!(err instanceof NoMemberReplicasError)) throw err;
    proposals = [{ error: err, reason: 'FailedGetScale' }];
  }
  const out = reconcileAutoscaler({
    specReplicas: input.templateReplicas,
    ...(spec.minReplicas !== undefined ? { minReplicas: spec.minReplicas } : {}),
    maxReplicas: spec.maxReplicas,
    ...(spec.behavior ? { behavior: spec.behavior } : {}),
    proposals,
    history: input.history,
    nowMs: input.nowMs,
    ...(input.downscaleStabilizationWindowSeconds !== undefined
      ? { downscaleStabilizationWindowSeconds: input.downscaleStabilizationWindowSeconds }
      : {}),
  });
  return {
    desiredReplicas: out.desiredReplicas,
    rescale: out.rescale,
    conditions: out.conditions,
    history: out.history,
    ...(calibration !== undefined ? { calibration } : {}),
    ...(utilization !== undefined ? { utilization } : {}),
    clusters,
  };
}
