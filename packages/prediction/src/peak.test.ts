import { describe, expect, it } from 'vitest';
import { isPeak } from './peak.js';

describe("isPeak (Crane's least-squares peak test)", () => {
  const tent = Float64Array.from([0, 1, 2, 3, 4, 3, 2, 1, 0]);
  it.each([
    ['the top of a tent', 4, 2, true],
    ['a rising flank', 2, 2, false],
    ['a falling flank', 6, 2, false],
    ['index 0', 0, 2, false],
    ['the last index', 8, 2, false],
  ])('%s', (_name, i, r, want) => {
    expect(isPeak(tent, i, r)).toBe(want);
  });

  it('clips the ranges to the array', () => {
    expect(isPeak(Float64Array.from([0, 5, 1]), 1, 10)).toBe(true);
  });
});
