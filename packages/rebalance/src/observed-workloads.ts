import type { ObservedWorkload, WorkloadReference } from './types.js';

/**
 * Karmada's sort key for `status.observedWorkloads`: apiVersion, kind, namespace and name joined by single spaces,
 * compared byte-wise. The proposal speaks of a '/' join; with spaces `ns` sorts before `ns-2` and a cluster-scoped
 * workload (empty namespace) before the namespaced ones of its kind.
 */
export function workloadSortKey(w: WorkloadReference): string {
  return `${w.apiVersion} ${w.kind} ${w.namespace ?? ''} ${w.name}`;
}

/** Byte-wise order of the sort keys (not localeCompare: upper case sorts before lower case, as Go's sort.Strings). */
export function compareWorkloads(a: WorkloadReference, b: WorkloadReference): number {
  const ka = workloadSortKey(a);
  const kb = workloadSortKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** The identity of a reference: its four fields, with an empty namespace the same as none. */
export function workloadKey(w: WorkloadReference): string {
  return JSON.stringify([w.apiVersion, w.kind, w.namespace ?? '', w.name]);
}

/** A reference as status stores it: the four fields only, namespace omitted when empty. */
export function normalizeReference(w: WorkloadReference): WorkloadReference {
  return { apiVersion: w.apiVersion, kind: w.kind, name: w.name, ...(w.namespace ? { namespace: w.namespace } : {}) };
}

export interface ObservedSync {
  observed: ObservedWorkload[];
  /** References new to the list (pending). */
  added: WorkloadReference[];
  /** References dropped from the list (no longer wanted and not Successful). */
  dropped: WorkloadReference[];
}

/**
 * Karmada's syncWorkloadsFromSpecToStatus: a wanted workload already observed keeps its result; one no longer
 * wanted stays only if it was Successful; a new one is appended with no result; duplicates collapse on the exact
 * reference; the list is sorted by {@link workloadSortKey}. A modified reference is thus a removal and an addition.
 */
export function syncObservedWorkloads(
  previous: readonly ObservedWorkload[],
  wanted: readonly WorkloadReference[],
): ObservedSync {
  const wantedKeys = new Set(wanted.map(workloadKey));
  const byKey = new Map<string, ObservedWorkload>();
  const dropped: WorkloadReference[] = [];
  for (const item of previous) {
    const key = workloadKey(item.workload);
    if (byKey.has(key)) continue;
    if (wantedKeys.has(key) || item.result === 'Successful') byKey.set(key, item);
    else dropped.push(normalizeReference(item.workload));
  }
  const added: WorkloadReference[] = [];
  for (const w of wanted) {
    const key = workloadKey(w);
    if (byKey.has(key)) continue;
    const ref = normalizeReference(w);
    byKey.set(key, { workload: ref });
    added.push(ref);
  }
  const observed = [...byKey.values()].sort((a, b) => compareWorkloads(a.workload, b.workload));
  return { observed, added: added.sort(compareWorkloads), dropped };
}
