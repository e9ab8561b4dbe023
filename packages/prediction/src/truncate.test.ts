import { describe, expect, it } from 'vitest';
import { truncateToPeriods } from './truncate.js';

const ramp = (n: number) => Float64Array.from({ length: n }, (_, i) => i);

describe("truncateToPeriods (Crane's Signal.Truncate)", () => {
  it.each([
    // id, n, period, multiple, kept, first kept index
    ['tr-01', 21_600, 604_800, 2, 20_160, 1440],
    ['tr-02', 100, 86_400, 0, undefined, undefined],
    ['tr-03', 4380, 86_400, 3, 4320, 60],
  ])('%s: %i one-minute samples, period %is', (_id, n, period, multiple, kept, first) => {
    const got = truncateToPeriods(ramp(n), 1 / 60, period);
    expect(got.multiple).toBe(multiple);
    expect(got.samples?.length).toBe(kept);
    expect(got.samples?.[0]).toBe(first);
    if (got.samples) expect(got.samples[got.samples.length - 1]).toBe(n - 1);
  });
});
