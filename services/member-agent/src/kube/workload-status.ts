import type { Condition } from '@flotilla/api';
import type { MemberHpaStatus, WorkloadReplicaStatus, WorkloadReport } from '../report-model.js';
import type { Resources } from '../resources.js';
import type { MemberRef, ObservedObject } from './member-objects.js';

/** What the driver keeps of one pod (client-go's transform): enough for the summary and the workload reports. */
export interface PodView {
  namespace: string;
  name: string;
  labels: Record<string, string>;
  nodeName?: string;
  phase?: string;
  /** `PodScheduled=False`: the scheduler found no node for it. */
  unschedulable: boolean;
  ready: boolean;
  request: Resources;
}

/** What the driver keeps of an object of a kind it applies: the marks, and for workloads their replica status. */
export interface MemberObjectView extends ObservedObject {
  generation?: number;
  /** `spec.selector.matchLabels` of a workload. */
  selector?: Record<string, string>;
  status?: {
    observedGeneration?: number;
    replicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    updatedReplicas?: number;
    conditions?: Array<Pick<Condition, 'type' | 'status' | 'reason'>>;
  };
  /** A HorizontalPodAutoscaler's spec and status. */
  hpa?: {
    minReplicas?: number;
    maxReplicas?: number;
    target?: { apiVersion?: string; kind?: string; name?: string };
    currentReplicas?: number;
    desiredReplicas?: number;
    cpuUtilization?: number;
  };
}

export function selectorMatches(selector: Record<string, string> | undefined, labels: Record<string, string>): boolean {
  if (!selector || Object.keys(selector).length === 0) return false;
  for (const [k, v] of Object.entries(selector)) if (labels[k] !== v) return false;
  return true;
}

export interface WorkloadInput {
  ref: MemberRef;
  view: MemberObjectView;
  /** The workload's pods (its selector, its namespace). */
  pods: readonly PodView[];
  /** One pod's CPU request from the template, in millicores. */
  cpuRequestMilli?: number;
  /** The member HPA acting on the workload, if one is there. */
  hpa?: MemberObjectView['hpa'];
}

/**
 * CPU used by the ready pods together (metrics.k8s.io, by pod name), in millicores: the member workload's usage,
 * which goes to the usage bucket (MemberUsageWriter), not into the binding's status. None when pods are ready and
 * metrics has none of them (not yet scraped, or a simulated workload without a load model), as the HPA controller
 * then reads no metric: a 0 would be a usage nobody measured.
 */
export function readyPodsCpuMilli(
  pods: readonly PodView[],
  podCpuMilli: ReadonlyMap<string, number>,
): number | undefined {
  let usage = 0;
  let ready = 0;
  let measured = 0;
  for (const p of pods) {
    if (!p.ready) continue;
    ready++;
    const cpu = podCpuMilli.get(p.name);
    if (cpu === undefined) continue;
    measured++;
    usage += cpu;
  }
  return ready > 0 && measured === 0 ? undefined : usage;
}

/**
 * One binding's entry in `aggregatedStatus` from a real workload, with the fields the sim driver reports: replicas
 * (desired), ready, available, pending (pods the scheduler could not place), the workload's conditions, one pod's
 * request, and the member HPA's status. Usage stays out of it (readyPodsCpuMilli): it moves all the time. Healthy when every desired pod is available
 * and the controller has seen the latest spec (Karmada's Deployment health interpreter).
 */
export function workloadReportFrom(input: WorkloadInput): WorkloadReport {
  const { view } = input;
  const replicas = view.replicas ?? 0;
  const st = view.status ?? {};
  const available = st.availableReplicas ?? 0;
  const status: WorkloadReplicaStatus = {
    replicas,
    readyReplicas: st.readyReplicas ?? 0,
    availableReplicas: available,
    pendingReplicas: input.pods.filter((p) => p.unschedulable).length,
  };
  if (st.conditions?.length)
    status.conditions = st.conditions.map((c) => ({
      type: c.type,
      status: c.status,
      ...(c.reason ? { reason: c.reason } : {}),
    }));
  if (input.cpuRequestMilli !== undefined) status.cpuRequestMilli = input.cpuRequestMilli;
  const h = input.hpa;
  if (h) {
    const hpa: MemberHpaStatus = {
      minReplicas: h.minReplicas ?? 1,
      maxReplicas: h.maxReplicas ?? 0,
      currentReplicas: h.currentReplicas ?? replicas,
      desiredReplicas: h.desiredReplicas ?? replicas,
    };
    if (h.cpuUtilization !== undefined) hpa.currentCPUUtilizationPercentage = h.cpuUtilization;
    status.hpa = hpa;
  }
  const caughtUp =
    view.generation === undefined || st.observedGeneration === undefined || st.observedGeneration >= view.generation;
  return { applied: true, health: caughtUp && available >= replicas ? 'Healthy' : 'Unhealthy', status };
}

/** A template without replicas (ConfigMap, Service, ClusterRole, …): healthy once it exists. */
export function plainObjectReport(): WorkloadReport {
  return { applied: true, health: 'Healthy' };
}

/** A binding whose object could not be applied here: the reason, and no numbers. */
export function notAppliedReport(message: string): WorkloadReport {
  return { applied: false, health: 'Unknown', appliedMessage: message };
}
