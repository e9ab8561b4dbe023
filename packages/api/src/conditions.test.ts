import { describe, expect, it } from 'vitest';
import { formatTime, getCondition, isConditionTrue, removeCondition, setCondition, type Condition } from './conditions.js';

const t0 = new Date('2024-04-17T15:00:05.123Z');
const t1 = new Date('2024-04-17T15:04:05.999Z');

describe('conditions', () => {
  it('formats metav1.Time with whole seconds in UTC', () => {
    expect(formatTime(t0)).toBe('2024-04-17T15:00:05Z');
  });

  it('appends a new condition with lastTransitionTime = now', () => {
    const out = setCondition(undefined, { type: 'Scheduled', status: 'True', reason: 'Success', message: 'ok' }, t0);
    expect(out).toEqual([{ type: 'Scheduled', status: 'True', reason: 'Success', message: 'ok', lastTransitionTime: '2024-04-17T15:00:05Z' }]);
  });

  it('keeps lastTransitionTime when only reason/message change, and does not mutate its input', () => {
    const before: Condition[] = [
      { type: 'Ready', status: 'True', reason: 'A', lastTransitionTime: '2024-04-17T15:00:05Z' },
      { type: 'Scheduled', status: 'True', reason: 'Success', lastTransitionTime: '2024-04-17T15:00:05Z' },
    ];
    const out = setCondition(before, { type: 'Scheduled', status: 'True', reason: 'Success', message: 'again', observedGeneration: 2 }, t1);
    expect(out[1]).toEqual({ type: 'Scheduled', status: 'True', reason: 'Success', message: 'again', observedGeneration: 2, lastTransitionTime: '2024-04-17T15:00:05Z' });
    expect(out[0]).toBe(before[0]);
    expect(before[1]!.message).toBeUndefined();
  });

  it('moves lastTransitionTime when the status changes', () => {
    const before: Condition[] = [{ type: 'Scheduled', status: 'True', reason: 'Success', lastTransitionTime: '2024-04-17T15:00:05Z' }];
    const out = setCondition(before, { type: 'Scheduled', status: 'False', reason: 'NoClusterFit' }, t1);
    expect(out).toEqual([{ type: 'Scheduled', status: 'False', reason: 'NoClusterFit', lastTransitionTime: '2024-04-17T15:04:05Z' }]);
  });

  it('gets, tests and removes by type', () => {
    const list: Condition[] = [{ type: 'Ready', status: 'True' }, { type: 'Scheduled', status: 'False' }];
    expect(getCondition(list, 'Scheduled')?.status).toBe('False');
    expect(getCondition(list, 'Nope')).toBeUndefined();
    expect(isConditionTrue(list, 'Ready')).toBe(true);
    expect(isConditionTrue(list, 'Scheduled')).toBe(false);
    expect(isConditionTrue(undefined, 'Ready')).toBe(false);
    expect(removeCondition(list, 'Ready')).toEqual([{ type: 'Scheduled', status: 'False' }]);
  });
});
