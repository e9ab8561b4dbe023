import { describe, expect, it } from 'vitest';
import { ttlOutcome } from './ttl.js';

describe('ttlOutcome', () => {
  const now = new Date('2026-01-01T00:01:00Z');
  it.each<[string, number | undefined, string | undefined, ReturnType<typeof ttlOutcome>]>([
    ['unset never deletes', undefined, '2026-01-01T00:00:00Z', { delete: false, requeueAfterMs: null }],
    ['no finishTime, nothing to count from', 30, undefined, { delete: false, requeueAfterMs: null }],
    ['not yet', 90, '2026-01-01T00:00:00Z', { delete: false, requeueAfterMs: 30_000 }],
    ['exactly due', 60, '2026-01-01T00:00:00Z', { delete: true }],
    ['zero', 0, '2026-01-01T00:01:00Z', { delete: true }],
    ['negative is zero', -10, '2026-01-01T00:01:00Z', { delete: true }],
  ])('%s', (_t, ttl, finish, expected) => expect(ttlOutcome(ttl, finish, now)).toEqual(expected));
});
