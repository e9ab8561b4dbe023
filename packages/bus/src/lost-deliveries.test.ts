import { describe, expect, it } from 'vitest';
import { lostBefore } from './events.js';

describe('lostBefore', () => {
  it.each([
    { previous: 0, delivery: 1, lost: undefined, why: 'the first delivery of a consumer created afresh' },
    { previous: 7, delivery: 8, lost: undefined, why: 'the next one' },
    { previous: 0, delivery: 3, lost: { fromDelivery: 1, toDelivery: 2 }, why: 'the first two never arrived' },
    { previous: 7, delivery: 12, lost: { fromDelivery: 8, toDelivery: 11 }, why: 'four lost on the way' },
    // A new consumer leader that had not heard of the last deliveries numbers them again: nothing is missing.
    { previous: 7, delivery: 5, lost: undefined, why: 'numbered again after a leader change' },
    { previous: 7, delivery: 7, lost: undefined, why: 'the same number again' },
  ])('$why: $previous then $delivery', ({ previous, delivery, lost }) => {
    expect(lostBefore(previous, delivery)).toEqual(lost);
  });
});
