import { describe, expect, it } from 'vitest';
import { getCondition, isConditionTrue, type Condition } from './conditions.js';
import { formatTime } from './kube-time.js';

const t0 = new Date('2024-04-17T15:00:05.123Z');

describe('conditions', () => {
  it('formats metav1.Time with whole seconds in UTC', () => {
    expect(formatTime(t0)).toBe('2024-04-17T15:00:05Z');
  });

  it('gets and tests by type', () => {
    const list: Condition[] = [
      { type: 'Ready', status: 'True' },
      { type: 'Scheduled', status: 'False' },
    ];
    expect(getCondition(list, 'Scheduled')?.status).toBe('False');
    expect(getCondition(list, 'Nope')).toBeUndefined();
    expect(isConditionTrue(list, 'Ready')).toBe(true);
    expect(isConditionTrue(list, 'Scheduled')).toBe(false);
    expect(isConditionTrue(undefined, 'Ready')).toBe(false);
  });
});
