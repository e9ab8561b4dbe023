import { describe, expect, it } from 'vitest';
import { executionId } from './execution-id.js';

describe('executionId', () => {
  const uid = '5f1c2d3e-aaaa-bbbb-cccc-0123456789ab';
  it('is deterministic and readable', () => {
    const t = new Date('2026-03-08T09:30:00.000Z');
    expect(executionId(uid, 'scale-up', t)).toBe(`cron.${uid}.scale-up.20260308T093000Z`);
    expect(executionId(uid, 'scale-up', new Date('2026-03-08T09:30:00.999Z'))).toBe(executionId(uid, 'scale-up', t));
  });

  it.each([
    ['a:b', 'a%3Ab'],
    ['a.b', 'a%2Eb'],
    ['Scale Up', 'Scale%20Up'],
    ['ü', '%C3%BC'],
  ])('escapes %j so it carries no ":" and parts stay apart', (name, escaped) => {
    const id = executionId(uid, name, new Date('2026-03-08T09:30:00Z'));
    expect(id).toBe(`cron.${uid}.${escaped}.20260308T093000Z`);
    expect(id).not.toContain(':');
  });

  it('keeps different triples apart', () => {
    const t = new Date('2026-03-08T09:30:00Z');
    const ids = new Set([
      executionId('a.b', 'c', t),
      executionId('a', 'b.c', t),
      executionId('a', 'b', t),
      executionId('a', 'b', new Date('2026-03-08T09:30:01Z')),
    ]);
    expect(ids.size).toBe(4);
  });

  it('rejects an invalid Date', () => {
    expect(() => executionId(uid, 'r', new Date(Number.NaN))).toThrow(RangeError);
  });
});
