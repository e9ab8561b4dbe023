import type { ObjectMeta, WorkloadSelector } from '@flotilla/api';
import { matchesLabelSelector } from '@flotilla/scheduling';
import { compareWorkloads, normalizeReference } from './observed-workloads.js';
import type { WorkloadReference } from './types.js';

/** What selecting needs of a resource template. */
export interface SelectableTemplate {
  apiVersion: string;
  kind: string;
  metadata: Pick<ObjectMeta, 'name' | 'namespace' | 'labels'>;
}

/**
 * The workloads `spec.workloadSelectors` select among `templates`: a template is selected when one selector's
 * apiVersion, kind and namespace (each when given) are its own and its labels match. Sorted, without duplicates.
 * The controller resolves this when it observes a spec (created or edited), so the list is a snapshot: templates
 * labelled later join only with the next spec edit (or the next rebalancer).
 */
export function selectWorkloads(
  selectors: readonly WorkloadSelector[] | undefined,
  templates: Iterable<SelectableTemplate>,
): WorkloadReference[] {
  if (!selectors?.length) return [];
  const out = new Map<string, WorkloadReference>();
  for (const t of templates) {
    const ns = t.metadata.namespace ?? '';
    const hit = selectors.some(
      (s) =>
        (s.apiVersion === undefined || s.apiVersion === t.apiVersion) &&
        (s.kind === undefined || s.kind === t.kind) &&
        (s.namespace === undefined || s.namespace === ns) &&
        matchesLabelSelector(s.labelSelector, t.metadata.labels),
    );
    if (!hit) continue;
    const ref = normalizeReference({ apiVersion: t.apiVersion, kind: t.kind, name: t.metadata.name, namespace: ns });
    out.set(`${ref.apiVersion} ${ref.kind} ${ns} ${ref.name}`, ref);
  }
  return [...out.values()].sort(compareWorkloads);
}

/** The kinds a set of selectors can select, or undefined when one of them names no kind (every template kind). */
export function selectedKinds(selectors: readonly WorkloadSelector[] | undefined): string[] | undefined {
  if (!selectors?.length) return [];
  if (selectors.some((s) => s.kind === undefined)) return undefined;
  return [...new Set(selectors.map((s) => s.kind!))];
}
