import { allocatableModelings, type ResourceModel } from '@flotilla/api';
import { addResources, timesPods, toResourceList, ZERO, type Resources } from '../resources.js';
import type { BindingRef, ResourceSummary, WorkloadReport } from '../report-model.js';

/** The pods one binding asks one cluster to run. */
export interface PlacedWorkload {
  binding: BindingRef;
  /** Desired pods in this cluster: the binding's assignment, or the cluster HPA's replica count. */
  replicas: number;
  /** Requests of one pod (its `pods` field is ignored: a pod is one pod). */
  request: Resources;
}

export interface WorkloadFit {
  binding: BindingRef;
  replicas: number;
  running: number;
  pending: number;
}

export interface ClusterFit {
  /** Requests of running pods, and their count. */
  allocated: Resources;
  /** Requests of Pending pods, and their count (see `fitWorkloads`). */
  allocating: Resources;
  /** In the order they were fitted. */
  workloads: WorkloadFit[];
}

export function compareBindings(a: BindingRef, b: BindingRef): number {
  return (
    (a.namespace ?? '').localeCompare(b.namespace ?? '') || a.name.localeCompare(b.name) || a.kind.localeCompare(b.kind)
  );
}

function fitting(free: number, per: number): number {
  return per > 0 ? Math.floor(free / per) : Number.POSITIVE_INFINITY;
}

/** How many of a workload's `replicas` pods of `request` still fit into `allocatable` beside `used` (its cpu, memory, pods). */
export function podsThatFit(allocatable: Resources, used: Resources, replicas: number, request: Resources): number {
  const room = Math.min(
    allocatable.pods - used.pods,
    fitting(allocatable.cpuMilli - used.cpuMilli, request.cpuMilli),
    fitting(allocatable.memoryBytes - used.memoryBytes, request.memoryBytes),
  );
  return Math.max(0, Math.min(replicas, room));
}

/**
 * Places each binding's pods into the cluster's allocatable capacity, bindings in namespace/name order, as many of
 * each as still fit (cpu, memory and pod count); the rest stay Pending. Stateless on purpose: the same bindings
 * give the same placement on every tick and after a restart, so a report never depends on history.
 *
 * The resource summary follows Karmada's cluster status controller: `allocated` sums the requests of pods bound to
 * a node, `allocating` those of pods not bound yet (Pending), each with its pod count. The scheduler's estimator
 * subtracts both, so a cluster with a backlog of Pending pods advertises no free room.
 */
export function fitWorkloads(allocatable: Resources, workloads: readonly PlacedWorkload[]): ClusterFit {
  let allocated: Resources = { ...ZERO };
  let allocating: Resources = { ...ZERO };
  const fits: WorkloadFit[] = [];
  for (const w of [...workloads].sort((a, b) => compareBindings(a.binding, b.binding))) {
    const replicas = Math.max(0, Math.floor(w.replicas));
    const running = podsThatFit(allocatable, allocated, replicas, w.request);
    const pending = replicas - running;
    allocated = addResources(allocated, timesPods(w.request, running));
    allocating = addResources(allocating, timesPods(w.request, pending));
    fits.push({ binding: w.binding, replicas, running, pending });
  }
  return { allocated, allocating, workloads: fits };
}

/**
 * The summary of a simulated cluster. Its pods fit into `allocatable` as a whole (see `fitWorkloads`), so for the
 * resource models it is one node of that shape with the running pods on it: a pod larger than the cluster's
 * capacity fits no grade, as on a real cluster whose nodes are all smaller than the pod.
 */
export function resourceSummary(
  allocatable: Resources,
  fit: ClusterFit,
  models: readonly ResourceModel[],
): ResourceSummary {
  const node = {
    allocatable: { cpu: allocatable.cpuMilli, memory: allocatable.memoryBytes, pods: allocatable.pods },
    requested: { cpu: fit.allocated.cpuMilli, memory: fit.allocated.memoryBytes },
    pods: fit.allocated.pods,
  };
  return {
    allocatable: toResourceList(allocatable),
    allocated: toResourceList(fit.allocated),
    allocating: toResourceList(fit.allocating),
    allocatableModelings: allocatableModelings(models, [node]),
  };
}

/** A workload is Healthy when every desired pod runs (a Deployment whose available replicas reached its spec). */
export function workloadReport(fit: WorkloadFit): WorkloadReport {
  return {
    applied: true,
    health: fit.running === fit.replicas ? 'Healthy' : 'Unhealthy',
    status: {
      replicas: fit.replicas,
      readyReplicas: fit.running,
      availableReplicas: fit.running,
      pendingReplicas: fit.pending,
    },
  };
}
