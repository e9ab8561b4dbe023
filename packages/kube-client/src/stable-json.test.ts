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

  it('writes what the map/filter/join version wrote, byte for byte (stored hashes were made with it)', () => {
    const before = (value: unknown): string => {
      if (Array.isArray(value)) return `[${value.map(before).join(',')}]`;
      if (value && typeof value === 'object')
        return `{${Object.keys(value)
          .sort()
          .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
          .map((k) => `${JSON.stringify(k)}:${before((value as Record<string, unknown>)[k])}`)
          .join(',')}}`;
      return JSON.stringify(value);
    };
    const manifest = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'shop', labels: { app: 'web', 'flotilla.io/managed-by': 'flotilla' } },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [{ name: 'c', image: 'nginx:1', resources: { requests: { cpu: '100m' } }, args: ['-x', ''] }],
            tolerations: [],
          },
        },
      },
    };
    const odd = { a: [undefined, null, 1.5, -0, 'é\u2028"', { z: undefined }], b: new Date(0), '': true, n: 1e21 };
    for (const v of [manifest, odd, [], {}, [[]], 0, null, 'x', true]) expect(stableJson(v)).toBe(before(v));
  });

  it('equal values digest equally whatever their field order, at the length and encoding asked', () => {
    const a = stableDigest({ x: 1, y: [1, 2] }, { encoding: 'hex', length: 20 });
    expect(a).toMatch(/^[0-9a-f]{20}$/);
    expect(stableDigest({ y: [1, 2], x: 1 }, { encoding: 'hex', length: 20 })).toBe(a);
    expect(stableDigest({ x: 1 }, { encoding: 'base64url', length: 22 })).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(stableDigest({ x: 1 }, { encoding: 'hex', length: 20 })).not.toBe(a);
  });
});
