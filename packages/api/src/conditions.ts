import type { Condition } from './kinds/common.js';

export type { Condition } from './kinds/common.js';

/** metav1.Time: UTC RFC3339 with whole seconds. */
export function formatTime(t: Date): string {
  return `${t.toISOString().slice(0, 19)}Z`;
}

export function getCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

export function isConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return getCondition(conditions, type)?.status === 'True';
}

/**
 * Sets a condition with metav1 semantics (apimachinery `meta.SetStatusCondition`): a new type is appended, an existing
 * one is updated in place, and `lastTransitionTime` moves to `now` only when the status changes. Returns a new array.
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  cond: Condition,
  now: Date,
): Condition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === cond.type);
  if (i < 0) {
    list.push({ ...cond, lastTransitionTime: cond.lastTransitionTime ?? formatTime(now) });
    return list;
  }
  const prev = list[i]!;
  const transition = prev.status !== cond.status;
  list[i] = {
    ...prev,
    ...cond,
    lastTransitionTime: transition ? (cond.lastTransitionTime ?? formatTime(now)) : (prev.lastTransitionTime ?? formatTime(now)),
  };
  return list;
}

/** Removes the condition of `type`; returns a new array. */
export function removeCondition(conditions: readonly Condition[] | undefined, type: string): Condition[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}
