import { describe, expect, it } from 'vitest';
import { decodeJobId, encodeJobId, jobDueAt, jobLateness, validateJobId } from './delayed-jobs.js';
import { InvalidJobIdError } from './errors.js';

describe('validateJobId', () => {
  it.each(['default/peak/2026-03-08T07%3A00%3A00.000Z', 'rule-1', 'a1', '1a', '01', '1.5'])('accepts %j', (id) => {
    expect(validateJobId(id)).toBe(id);
  });

  it.each([
    ['', 'jobId: must not be empty, got ""'],
    ['a:b', `jobId: must not contain ':' (use encodeJobId), got "a:b"`],
    // BullMQ itself would let exactly two colons through, reading it as a legacy repeat-job id.
    ['a:b:c', `jobId: must not contain ':' (use encodeJobId), got "a:b:c"`],
    ['42', 'jobId: must not be an integer, got "42"'],
    ['0', 'jobId: must not be an integer, got "0"'],
    ['-7', 'jobId: must not be an integer, got "-7"'],
  ])('refuses %j', (id, message) => {
    expect(() => validateJobId(id)).toThrow(InvalidJobIdError);
    expect(() => validateJobId(id)).toThrow(message);
  });
});

describe('encodeJobId / decodeJobId', () => {
  it.each([
    [['default', 'peak', '2026-03-08T07:00:00.000Z'], 'default/peak/2026-03-08T07%3A00%3A00.000Z'],
    [['ns', 'a/b'], 'ns/a%2Fb'],
    [['100%', 'x'], '100%25/x'],
    [['%3A'], '%253A'],
    [['cron', ''], 'cron/'],
  ])('%j <-> %s', (parts, id) => {
    expect(encodeJobId(...parts)).toBe(id);
    expect(decodeJobId(id)).toEqual(parts);
  });

  it('is injective where naive replacement would collide', () => {
    const ids = [
      encodeJobId('a:b'),
      encodeJobId('a%3Ab'),
      encodeJobId('a', 'b'),
      encodeJobId('a/b'),
      encodeJobId('a_b'),
    ];
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('refuses no parts and integer-only results', () => {
    expect(() => encodeJobId()).toThrow(InvalidJobIdError);
    expect(() => encodeJobId('42')).toThrow('jobId: must not be an integer, got "42"');
  });
});

describe('jobDueAt / jobLateness', () => {
  const t0 = Date.parse('2026-03-08T07:00:00.000Z');
  it.each([
    // job.delay is 0 after promotion; only opts.delay tells when it was due.
    [
      'a delayed job picked up 37 ms late',
      { timestamp: t0 - 5000, opts: { delay: 5000 }, processedOn: t0 + 37 },
      t0,
      37,
    ],
    ['a job with no delay', { timestamp: t0, opts: {}, processedOn: t0 + 3 }, t0, 3],
    ['a job not yet started', { timestamp: t0, opts: { delay: 100 }, processedOn: undefined }, t0 + 100, undefined],
    [
      'clock skew between producer and worker',
      { timestamp: t0, opts: { delay: 100 }, processedOn: t0 + 90 },
      t0 + 100,
      -10,
    ],
  ])('%s', (_label, job, dueAt, late) => {
    expect(jobDueAt(job)).toBe(dueAt);
    expect(jobLateness(job)).toBe(late);
  });
});
