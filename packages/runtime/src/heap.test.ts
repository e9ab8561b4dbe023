import { describe, expect, it } from 'vitest';
import { applyHeapGrowth } from './heap.js';

describe('applyHeapGrowth', () => {
  it('sets V8 heap growing percent, and leaves V8 policy alone at 0', () => {
    const set: string[] = [];
    applyHeapGrowth(25, (f) => set.push(f));
    applyHeapGrowth(0, (f) => set.push(f));
    expect(set).toEqual(['--heap-growing-percent=25']);
  });
});
