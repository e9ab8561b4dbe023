import { compareNames } from '@flotilla/scheduling';

/**
 * Prioritized order: a HIGHER priority value is preferred (the Kubernetes and PropagationPolicy convention; the
 * proposal uses both directions). A cluster no preference names comes after every named one; ties go by name.
 */
export function byPriority<T extends { name: string; priority: number | undefined }>(a: T, b: T): number {
  const pa = a.priority ?? -Infinity;
  const pb = b.priority ?? -Infinity;
  return pb === pa ? compareNames(a.name, b.name) : pb > pa ? 1 : -1;
}

/** Aggregated order: more free capacity first, then name. */
export function byAvailability<T extends { name: string; available: number }>(a: T, b: T): number {
  return b.available - a.available || compareNames(a.name, b.name);
}

/** Member assignments are kept and written in cluster name order. */
export function byClusterName(a: { cluster: string }, b: { cluster: string }): number {
  return compareNames(a.cluster, b.cluster);
}
