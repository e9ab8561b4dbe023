import { describe, expect, it } from 'vitest';
import { applyStatusPatch, mergeConditions } from './status-patch.js';

describe('mergeConditions', () => {
  it('moves lastTransitionTime only when the status changes', () => {
    const one = mergeConditions(undefined, [{ type: 'Ready', status: 'True', reason: 'A' }], 't1');
    expect(one).toEqual([{ type: 'Ready', status: 'True', reason: 'A', lastTransitionTime: 't1' }]);
    const same = mergeConditions(one, [{ type: 'Ready', status: 'True', reason: 'B' }], 't2');
    expect(same[0]).toMatchObject({ reason: 'B', lastTransitionTime: 't1' });
    const flipped = mergeConditions(same, [{ type: 'Ready', status: 'False', reason: 'C' }], 't3');
    expect(flipped[0]).toMatchObject({ status: 'False', lastTransitionTime: 't3' });
    const other = mergeConditions(flipped, [{ type: 'Scheduled', status: 'True' }], 't4');
    expect(other.map((c) => c.type)).toEqual(['Ready', 'Scheduled']);
  });

  it("takes an update's lastUpdateTime as it is, and drops it with an update that has none", () => {
    const first = mergeConditions(undefined, [{ type: 'X', status: 'True', lastUpdateTime: 't1' }], 't1');
    const again = mergeConditions(first, [{ type: 'X', status: 'True', lastUpdateTime: 't2' }], 't2');
    expect(again).toEqual([{ type: 'X', status: 'True', lastTransitionTime: 't1', lastUpdateTime: 't2' }]);
    expect(mergeConditions(again, [{ type: 'X', status: 'True' }], 't3')).toEqual([
      { type: 'X', status: 'True', lastTransitionTime: 't1' },
    ]);
  });
});

describe('applyStatusPatch', () => {
  it('replaces fields, removes those patched to null, merges conditions by type and leaves its input alone', () => {
    const before = { a: 1, b: 2, conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: 't0' }] };
    const after = applyStatusPatch(
      before,
      { a: 3, b: null, conditions: [{ type: 'Scheduled', status: 'True', lastTransitionTime: 't1' }] },
      't2',
    );
    expect(after).toEqual({
      a: 3,
      conditions: [
        { type: 'Ready', status: 'True', lastTransitionTime: 't0' },
        { type: 'Scheduled', status: 'True', lastTransitionTime: 't1' },
      ],
    });
    expect(before).toEqual({ a: 1, b: 2, conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: 't0' }] });
  });
});
