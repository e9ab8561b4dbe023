import { objectKey, type ObjectRef } from './object.js';

/**
 * A member workload's latest CPU usage: the value of its key in the bus's `usage` bucket (BusNames.usageBucket).
 * Usage is a metric, not status (Karmada's aggregated status carries replica counts and conditions): kept here, a
 * move of a pod's CPU writes nothing that is mirrored to a host API server.
 */
export interface MemberUsage {
  /** CPU used by the member workload's ready pods together, in millicores. */
  cpuUsageMilli: number;
  /** When the agent observed it (RFC 3339). */
  observedAt: string;
}

/**
 * The key of a binding's usage in one cluster, as a ref of the binding's kind: `<kind>.<namespace>.<binding>.<cluster>`.
 * Cluster names are DNS-1123 labels (no dots), so the last dot separates the cluster.
 */
export function memberUsageRef(binding: ObjectRef, cluster: string): ObjectRef {
  return { ...binding, name: `${binding.name}.${cluster}` };
}

/** The object key of the binding a usage key belongs to (its key without the cluster). */
export function bindingKeyOfUsageKey(usageKey: string): string {
  return usageKey.slice(0, usageKey.lastIndexOf('.'));
}

/** The usage key of a binding's usage in `cluster` (see memberUsageRef). */
export function memberUsageKey(binding: ObjectRef, cluster: string): string {
  return objectKey(memberUsageRef(binding, cluster));
}
