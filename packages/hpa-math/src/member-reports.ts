import type { PodSample } from './group-pods.js';

/** What a member cluster reports of its member HPA (the `hpa` of its aggregatedStatus entry). */
export interface MemberHpaStatus {
  cluster: string;
  currentReplicas?: number;
  desiredReplicas?: number;
  currentCPUUtilizationPercentage?: number;
}

/** One entry of a binding's `status.aggregatedStatus`, as the member-agents report the workload. */
export interface AggregatedWorkloadEntry {
  clusterName: string;
  status?: {
    replicas?: number;
    readyReplicas?: number;
    pendingReplicas?: number;
    cpuRequestMilli?: number;
    hpa?: Omit<MemberHpaStatus, 'cluster'>;
  };
}

/** One member cluster's report about the target (its binding's aggregatedStatus entry and the cluster's Ready). */
export interface MemberReport {
  cluster: string;
  clusterReady: boolean;
  specReplicas: number;
  readyReplicas: number;
  pendingReplicas: number;
  /** CPU used by the ready pods together, in millicores (from the usage bucket); absent when none is reported. */
  cpuUsageMilli?: number;
  /** CPU request of one pod, in millicores. */
  cpuRequestMilli?: number;
}

/**
 * The member workloads of a binding as the centralized autoscalers read them: only the clusters the binding still
 * places the workload on, each marked with its cluster's Ready condition and joined with its latest CPU usage
 * (`usageOf`: the member-agents keep usage apart from the status, in the usage bucket).
 */
export function memberReports(
  entries: readonly AggregatedWorkloadEntry[],
  boundClusters: readonly string[],
  clusterReady: ReadonlyMap<string, boolean>,
  usageOf: (cluster: string) => number | undefined = () => undefined,
): MemberReport[] {
  return entries
    .filter((e) => boundClusters.includes(e.clusterName))
    .map((e) => {
      const usage = usageOf(e.clusterName);
      return {
        cluster: e.clusterName,
        clusterReady: clusterReady.get(e.clusterName) ?? false,
        specReplicas: e.status?.replicas ?? 0,
        readyReplicas: e.status?.readyReplicas ?? 0,
        pendingReplicas: e.status?.pendingReplicas ?? 0,
        ...(usage !== undefined ? { cpuUsageMilli: usage } : {}),
        ...(e.status?.cpuRequestMilli !== undefined ? { cpuRequestMilli: e.status.cpuRequestMilli } : {}),
      };
    });
}

/** The member HPAs of the clusters a binding places the workload on, as their clusters report them. */
export function memberHpaStatuses(
  entries: readonly AggregatedWorkloadEntry[],
  boundClusters: readonly string[],
): MemberHpaStatus[] {
  return entries
    .filter((e) => boundClusters.includes(e.clusterName) && e.status?.hpa)
    .map((e) => ({ cluster: e.clusterName, ...e.status!.hpa }));
}

/**
 * The simulator reports one usage total per member workload; the replica calculator wants a sample per pod. Equal
 * shares (the remainder on the first pod) keep the sum, and utilisation depends only on the sum.
 */
export function memberPods(m: MemberReport): PodSample[] {
  const ready = Math.max(0, m.readyReplicas);
  const usage = m.cpuUsageMilli;
  const share = usage !== undefined && ready > 0 ? Math.floor(usage / ready) : 0;
  const request = m.cpuRequestMilli !== undefined ? { requestMilli: m.cpuRequestMilli } : {};
  const pods: PodSample[] = [];
  for (let i = 0; i < ready; i++) {
    const value = usage === undefined ? null : i === 0 ? usage - share * (ready - 1) : share;
    pods.push({ state: 'ready', ...request, valueMilli: value });
  }
  for (let i = 0; i < m.pendingReplicas; i++) pods.push({ state: 'pending', ...request, valueMilli: null });
  return pods;
}
