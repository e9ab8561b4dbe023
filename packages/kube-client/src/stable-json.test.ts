import { describe, expect, it } from 'vitest';
import { stableDigest, stableJson } from './stable-json.js';

describe('stableJson and stableDigest', () => {
  it.each([
    [
      'keys sorted at every depth',
      { b: 1, a: { d: [2, { f: 1, e: 0 }], c: 'x' } },
      '{"a":{"c":"x","d":[2,{"e":0,"f":1}]},"b":1}',
    ],
    ['undefined fields left out', { a: undefined, b: null }, '{"b":null}'],
    ['scalars as JSON', 'x"y', '"x\\"y"'],
  ])('%s', (_, value, want) => expect(stableJson(value)).toBe(want));

  it('equal values digest equally whatever their field order, at the length and encoding asked', () => {
    const a = stableDigest({ x: 1, y: [1, 2] }, { encoding: 'hex', length: 20 });
    expect(a).toMatch(/^[0-9a-f]{20}$/);
    expect(stableDigest({ y: [1, 2], x: 1 }, { encoding: 'hex', length: 20 })).toBe(a);
    expect(stableDigest({ x: 1 }, { encoding: 'base64url', length: 22 })).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(stableDigest({ x: 1 }, { encoding: 'hex', length: 20 })).not.toBe(a);
  });
});
