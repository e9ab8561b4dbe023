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
