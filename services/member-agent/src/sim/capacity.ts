import type { Resources } from '../resources.js';
import type { BindingRef } from '../report-model.js';

/** Where the simulated kubelet (simulated-member.ts) puts a workload's pods: how many run and how many wait. */
export interface WorkloadFit {
  binding: BindingRef;
  replicas: number;
  running: number;
  pending: number;
}

/** The order the simulated kubelet places workloads in: namespace, name, kind. */
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
