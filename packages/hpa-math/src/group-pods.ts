/**
 * What the HPA knows of one pod of the scale target: its state and one metric sample. All values are integer
 * milli-units, as Kubernetes' replica calculator works on `MilliValue()`.
 */
export type PodState = 'ready' | 'unready' | 'cpuInitializing' | 'pending' | 'failed' | 'deleting';

export interface PodSample {
  state: PodState;
  /** The pod's request for the metric's resource (sum over its containers); Resource metrics only. */
  requestMilli?: number;
  /** The pod's metric sample (usage for Resource metrics); null when the metrics API returned none. */
  valueMilli: number | null;
}

export interface PodGroups {
  /** Pods whose sample counts as is. */
  readyCount: number;
  /** Indices of pods left out now and re-added as 0 on a scale-up (Pending, and unready for CPU). */
  unready: number[];
  /** Indices of pods without a sample. */
  missing: number[];
  /** Samples of the ready pods, by pod index. */
  samples: Map<number, number>;
}

/**
 * Kubernetes' `groupPods`. Failed and deleting pods are dropped entirely. Readiness matters only for CPU: a pod
 * that is not Ready, or still initialising with a sample taken before it turned Ready, has a misleading CPU
 * sample, so it is left out (and counted as idle when scaling up).
 */
export function groupPods(pods: readonly PodSample[], checkCpuReadiness: boolean): PodGroups {
  const groups: PodGroups = { readyCount: 0, unready: [], missing: [], samples: new Map() };
  pods.forEach((pod, i) => {
    if (pod.state === 'failed' || pod.state === 'deleting') return;
    if (pod.state === 'pending') {
      groups.unready.push(i);
      return;
    }
    if (pod.valueMilli === null) {
      groups.missing.push(i);
      return;
    }
    if (checkCpuReadiness && (pod.state === 'unready' || pod.state === 'cpuInitializing')) {
      groups.unready.push(i);
      return;
    }
    groups.readyCount++;
    groups.samples.set(i, pod.valueMilli);
  });
  return groups;
}

/** Kubernetes' `getReadyPodsCount`: pods Running with Ready=True (an initialising CPU sample does not matter here). */
export function runningReadyCount(states: readonly PodState[]): number {
  return states.filter((s) => s === 'ready' || s === 'cpuInitializing').length;
}

/**
 * Pods for the replica calculator when only a workload's totals are known (a simulated cluster, a member's usage
 * report). Equal shares, the remainder on the first pod, keep the sum exact, and utilization depends only on the sum;
 * pods not running yet are Pending, as the HPA sees them.
 */
export function equalSharePods(
  readyPods: number,
  pendingPods: number,
  usageMilli: number,
  requestMilli: number,
): PodSample[] {
  const ready = Math.max(0, readyPods);
  const share = ready > 0 ? Math.floor(usageMilli / ready) : 0;
  const pods: PodSample[] = Array.from({ length: ready }, (_, i) => ({
    state: 'ready',
    requestMilli,
    valueMilli: i === 0 ? usageMilli - share * (ready - 1) : share,
  }));
  for (let i = 0; i < pendingPods; i++) pods.push({ state: 'pending', requestMilli, valueMilli: null });
  return pods;
}
