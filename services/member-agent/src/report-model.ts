import type {
  AllocatableModeling,
  ClusterStatus,
  Condition,
  ForeignHorizontalPodAutoscaler,
  KubeEventData,
} from '@flotilla/api';
import type { FormattedResourceList } from './resources.js';

// What a member agent reports, whichever driver measured it (simulated clusters or a real one): the model both
// drivers fill and the ReportBook publishes.

/** A binding (ResourceBinding or ClusterResourceBinding) by address; `namespace` is absent for cluster scope. */
export interface BindingRef {
  kind: string;
  namespace?: string | undefined;
  name: string;
}

export interface ResourceSummary {
  allocatable: FormattedResourceList;
  allocated: FormattedResourceList;
  allocating: FormattedResourceList;
  /** How many nodes fall into each resource model (Karmada's CustomizedClusterResourceModeling). */
  allocatableModelings?: AllocatableModeling[];
}

export type Health = 'Healthy' | 'Unhealthy' | 'Unknown';

export interface WorkloadReplicaStatus {
  replicas: number;
  readyReplicas: number;
  availableReplicas: number;
  pendingReplicas: number;
  /** CPU request of one pod, in millicores (workloads with a load model). */
  cpuRequestMilli?: number;
  /** The member HPA acting on the workload in this cluster, as its status says. */
  hpa?: MemberHpaStatus;
  /** The workload's own conditions (real clusters), without their times so that only a change is reported. */
  conditions?: Array<Pick<Condition, 'type' | 'status' | 'reason'>>;
}

export interface MemberHpaStatus {
  minReplicas: number;
  maxReplicas: number;
  currentReplicas: number;
  desiredReplicas: number;
  currentCPUUtilizationPercentage?: number;
}

/** What a member cluster says about one binding's workload: one entry of the binding's `aggregatedStatus`. */
export interface WorkloadReport {
  applied: boolean;
  health: Health;
  appliedMessage?: string;
  status?: WorkloadReplicaStatus;
}

/**
 * A failed cluster cannot be asked: nothing new is applied and the last replica counts are unknown, so the entry
 * carries no `status` rather than stale or invented numbers.
 */
export function unreachableWorkloadReport(clusterName: string): WorkloadReport {
  return { applied: false, health: 'Unknown', appliedMessage: `cluster "${clusterName}" is not reachable` };
}

/** The Ready condition a member agent reports: always with a reason and message. */
export type ClusterCondition = Pick<Condition, 'type'> &
  Required<Pick<Condition, 'reason' | 'message'>> & { status: 'True' | 'False' };

/** The part of a Cluster's status a member agent reports. */
export type ClusterStatusPatch = Pick<ClusterStatus, 'kubernetesVersion'> & {
  conditions: ClusterCondition[];
  resourceSummary?: ResourceSummary;
} & ForeignHpasPatch;

/**
 * The member cluster's HorizontalPodAutoscalers that Flotilla did not create (null: none, the field is removed),
 * sorted by namespace and name: an autoscaler aimed at the same workload has an owner conflict (hpa-assigner's
 * replica-owners controller). Absent from a patch that could not look (an unreachable cluster).
 */
type ForeignHpasPatch = {
  [K in 'foreignHorizontalPodAutoscalers']?: ClusterStatus[K] | null;
};

/** A cluster's foreign HPAs as a status patch carries them: sorted, and null for none. */
export function foreignHpasField(
  hpas: readonly ForeignHorizontalPodAutoscaler[],
): ForeignHorizontalPodAutoscaler[] | null {
  if (hpas.length === 0) return null;
  return [...hpas].sort((a, b) => (a.namespace ?? '').localeCompare(b.namespace ?? '') || a.name.localeCompare(b.name));
}

export interface ClusterStatusReportedData {
  statusPatch: ClusterStatusPatch;
  kubeEvent?: KubeEventData;
}

export interface WorkloadStatusReportedData extends Partial<WorkloadReport> {
  clusterName: string;
  applied: boolean;
  removed?: true;
  /**
   * The clusters the binding targets as the agent saw it (spec.clusters' names, sorted): the status writer decides
   * the binding's FullyApplied condition from them and the aggregated status, as Karmada's binding controller does.
   */
  targetClusters?: string[];
  /** A Warning on the binding when the cluster first reports pods of it Pending (PodsPending). */
  kubeEvent?: KubeEventData;
}

/**
 * The reports of several clusters of one binding in one `WorkloadStatusReported` event, from an agent that speaks for
 * them all (the simulated fleet): the status writer folds them as one write, and they are one event in the log.
 */
export interface WorkloadStatusesReportedData {
  reports: Array<Omit<WorkloadStatusReportedData, 'targetClusters' | 'kubeEvent'>>;
  targetClusters?: string[];
  /** The clusters' PodsPending Warnings, one per cluster that first reports pods Pending. */
  kubeEvents?: KubeEventData[];
}

/** Stored status of an object, used after a restart so that what is already reported is not published again. */
export type StatusLookup = (
  kind: string,
  namespace: string | undefined,
  name: string,
) => Record<string, unknown> | undefined;

/** The CPU one workload uses in one member cluster (simulated: its load model's demand while it has running pods; real: its ready pods' usage). */
export interface WorkloadUsage {
  cluster: string;
  namespace: string;
  kind: string;
  workload: string;
  cores: number;
}
