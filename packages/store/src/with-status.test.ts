import { describe, expect, it } from 'vitest';
import { hasSpec } from './object.js';
import type { StatusRecord } from './status-store.js';
import { allWithStatus, withStatus } from './with-status.js';

type Located = { metadata: { name: string }; spec?: { region?: string } };
const cache = <T>(entries: Array<[string, T]>) => ({
  cache: new Map(entries.map(([key, value], i) => [key, { value, revision: i + 1 }])),
});
const a: Located = { metadata: { name: 'a' }, spec: { region: 'eu' } };
const b: Located = { metadata: { name: 'b' } };
const statuses = cache<StatusRecord<{ ready: boolean }>>([['Cluster._.a', { seq: 7, status: { ready: true } }]]);

describe('withStatus', () => {
  it.each([
    { name: 'status folded', object: a, key: 'Cluster._.a', status: { ready: true } },
    { name: 'no status yet', object: b, key: 'Cluster._.b', status: undefined },
  ])('joins the cached status by key: $name', ({ object, key, status }) => {
    expect(withStatus(object, key, statuses)).toEqual({ ...object, status });
  });

  it('without a status cache the status is undefined', () => {
    expect(withStatus(a, 'Cluster._.a', undefined)).toEqual({ ...a, status: undefined });
  });

  it('joins every cached object, in cache order, and leaves the cached values as they were', () => {
    const objects = cache([
      ['Cluster._.a', a],
      ['Cluster._.b', b],
    ]);
    expect(allWithStatus(objects, statuses)).toEqual([
      { ...a, status: { ready: true } },
      { ...b, status: undefined },
    ]);
    expect(objects.cache.get('Cluster._.a')?.value).toEqual({ metadata: { name: 'a' }, spec: { region: 'eu' } });
  });
});

describe('hasSpec', () => {
  it.each([
    { spec: { region: 'eu' }, has: true },
    { spec: {}, has: true },
    { spec: undefined, has: false },
    { spec: null, has: false },
  ])('$spec → $has', ({ spec, has }) => {
    expect(hasSpec({ spec })).toBe(has);
  });
});
