import type { RebalanceEvent } from './events.js';
import { compareWorkloads, normalizeReference, workloadKey } from './observed-workloads.js';
import { REFERENCED_BINDING_NOT_FOUND, type ObservedWorkload, type WorkloadRebalancerStatus } from './types.js';

/**
 * Folds one rebalancer event into its status (the status writer's reducer, and the controller's own projection).
 * Pure; an event naming a workload the list no longer holds changes nothing for it, so events of an older
 * observation that arrive late cannot resurrect a dropped workload.
 */
export function evolveRebalancerStatus(
  status: WorkloadRebalancerStatus | undefined,
  event: RebalanceEvent,
): WorkloadRebalancerStatus {
  const next: WorkloadRebalancerStatus = { ...(status ?? {}) };
  const items = new Map<string, ObservedWorkload>(
    ((status?.observedWorkloads ?? []) as ObservedWorkload[]).map((o) => [workloadKey(o.workload), o]),
  );
  const setResult = (
    refs: Iterable<{ workload: Parameters<typeof workloadKey>[0] }>,
    result: ObservedWorkload['result'],
    reason?: string,
  ) => {
    for (const { workload } of refs) {
      const key = workloadKey(workload);
      const cur = items.get(key);
      if (cur) items.set(key, { workload: cur.workload, result, ...(reason ? { reason } : {}) });
    }
  };
  switch (event.type) {
    case 'RebalanceObserved':
      for (const w of event.data.dropped) items.delete(workloadKey(w));
      for (const w of event.data.added)
        if (!items.has(workloadKey(w))) items.set(workloadKey(w), { workload: normalizeReference(w) });
      next.observedGeneration = event.data.observedGeneration;
      break;
    case 'RebalanceTriggered':
      setResult(event.data.workloads, 'Successful');
      break;
    case 'RebalanceBindingNotFound':
      setResult(event.data.workloads, 'Failed', REFERENCED_BINDING_NOT_FOUND);
      break;
    case 'RebalanceFinished':
      next.finishTime = event.data.finishTime;
      break;
  }
  const observed = [...items.values()].sort((a, b) => compareWorkloads(a.workload, b.workload));
  if (observed.length || next.observedWorkloads)
    next.observedWorkloads = observed as WorkloadRebalancerStatus['observedWorkloads'];
  return next;
}

/** Folds events in order. */
export function foldRebalancerStatus(
  status: WorkloadRebalancerStatus | undefined,
  events: readonly RebalanceEvent[],
): WorkloadRebalancerStatus | undefined {
  return events.reduce<WorkloadRebalancerStatus | undefined>((s, e) => evolveRebalancerStatus(s, e), status);
}
