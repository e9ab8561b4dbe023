import type { MemberReport } from './centralized.js';

/** One entry of a binding's `status.aggregatedStatus`, as the member-agents report the workload. */
export interface AggregatedWorkloadEntry {
  clusterName: string;
  status?: {
    replicas?: number;
    readyReplicas?: number;
    pendingReplicas?: number;
    cpuUsageMilli?: number;
    cpuRequestMilli?: number;
  };
}

/**
 * The member workloads of a binding as the centralized autoscalers read them: only the clusters the binding still
 * places the workload on, each marked with its cluster's Ready condition.
 */
export function memberReports(
  entries: readonly AggregatedWorkloadEntry[],
  boundClusters: readonly string[],
  clusterReady: ReadonlyMap<string, boolean>,
): MemberReport[] {
  return entries
    .filter((e) => boundClusters.includes(e.clusterName))
    .map((e) => ({
      cluster: e.clusterName,
      clusterReady: clusterReady.get(e.clusterName) ?? false,
      specReplicas: e.status?.replicas ?? 0,
      readyReplicas: e.status?.readyReplicas ?? 0,
      pendingReplicas: e.status?.pendingReplicas ?? 0,
      ...(e.status?.cpuUsageMilli !== undefined ? { cpuUsageMilli: e.status.cpuUsageMilli } : {}),
      ...(e.status?.cpuRequestMilli !== undefined ? { cpuRequestMilli: e.status.cpuRequestMilli } : {}),
    }));
}
