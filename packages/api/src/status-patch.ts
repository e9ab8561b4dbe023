/** A condition as a status patch carries it (metav1.Condition, with any status string). */
export interface PatchCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastUpdateTime?: string;
  observedGeneration?: number;
}

/**
 * Merges conditions by type with Kubernetes semantics: an update replaces the condition of its type (or is
 * appended), and lastTransitionTime moves only when the status changes, to the update's own time or else `at`.
 */
export function mergeConditions(
  current: readonly PatchCondition[] | undefined,
  updates: readonly PatchCondition[],
  at: string,
): PatchCondition[] {
  const out = [...(current ?? [])];
  for (const u of updates) {
    const i = out.findIndex((c) => c.type === u.type);
    const prev = i >= 0 ? out[i] : undefined;
    const lastTransitionTime =
      prev && prev.status === u.status ? prev.lastTransitionTime : (u.lastTransitionTime ?? at);
    const next = { ...u, lastTransitionTime };
    if (i >= 0) out[i] = next;
    else out.push(next);
  }
  return out;
}

/**
 * A status after a `statusPatch` (the status writer's fold of every domain event, docs/design/events.md):
 * top-level fields are replaced, a field set to null is removed (as in a JSON merge patch), and `conditions`
 * merge by type (mergeConditions, `at` standing in for a condition without its own lastTransitionTime).
 */
export function applyStatusPatch(
  status: Readonly<Record<string, unknown>> | undefined,
  patch: Readonly<Record<string, unknown>>,
  at: string,
): Record<string, unknown> {
  const { conditions, ...fields } = patch as Record<string, unknown> & { conditions?: PatchCondition[] };
  const next: Record<string, unknown> = { ...(status ?? {}), ...fields };
  for (const [k, v] of Object.entries(fields)) if (v === null) delete next[k];
  if (conditions) next.conditions = mergeConditions(status?.conditions as PatchCondition[] | undefined, conditions, at);
  return next;
}
