import { describe, expect, it } from 'vitest';
import { isQuantity, parseQuantity, QuantityError } from './quantity.js';

describe('parseQuantity', () => {
  it.each([
    ['500m', 0.5],
    ['2', 2],
    ['1.5', 1.5],
    ['32Gi', 32 * 2 ** 30],
    ['100Mi', 100 * 2 ** 20],
    ['1k', 1000],
    ['1e3', 1000],
    ['110', 110],
    [4, 4],
    ['0', 0],
  ])('%s -> %d', (input, expected) => {
    expect(parseQuantity(input)).toBeCloseTo(expected, 9);
  });
  it.each(['', 'abc', '1Xi', '--1', '1 Gi'])('rejects %j', (input) => {
    expect(() => parseQuantity(input)).toThrow(QuantityError);
    expect(isQuantity(input)).toBe(false);
  });
});
