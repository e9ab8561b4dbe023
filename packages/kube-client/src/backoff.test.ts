import { describe, expect, it } from 'vitest';
import { backoffDelay } from './backoff.js';

describe('backoffDelay', () => {
  it('doubles from the base up to the cap, with ±50 % jitter', () => {
    const o = { baseMs: 500, maxMs: 30_000 };
    expect([0, 1, 2, 3, 10].map((a) => backoffDelay(a, o, () => 0.5))).toEqual([500, 1000, 2000, 4000, 30_000]);
    expect(backoffDelay(2, o, () => 0)).toBe(1000);
    expect(backoffDelay(2, o, () => 0.999999)).toBe(3000);
  });
});
