import { CronExpressionParser } from 'cron-parser';
import { describe, expect, it } from 'vitest';
import { CronSyntaxError, UnknownTimeZoneError } from './errors.js';
import { fireTimesBetween, nextFireTime } from './next-fire-time.js';

const iso = (d: Date): string => d.toISOString().replace('.000Z', 'Z');
const next = (expr: string, tz: string | undefined, after: string, def?: string): string =>
  iso(nextFireTime(expr, tz, new Date(after), def));
const series = (expr: string, tz: string, after: string, n: number): string[] =>
  fireTimesBetween(expr, tz, new Date(after), new Date('2200-01-01T00:00:00Z'), n).map(iso);

describe("nextFireTime: the CronFederatedHPA proposal's examples", () => {
  it.each([
    // `3 * * * *` applied at 9:04 -> 10:03, at 9:01 -> 9:03; after running at 10:03 the next is 11:03
    ['2026-05-04T09:04:00Z', '2026-05-04T10:03:00Z'],
    ['2026-05-04T09:01:00Z', '2026-05-04T09:03:00Z'],
    ['2026-05-04T10:03:00Z', '2026-05-04T11:03:00Z'],
    // searched from the next whole second, as Karmada: exactly at 09:03:00.000 is past, 09:02:59.5 is not
    ['2026-05-04T09:03:00.000Z', '2026-05-04T10:03:00Z'],
    ['2026-05-04T09:02:59.500Z', '2026-05-04T09:03:00Z'],
  ])('3 * * * * after %s is %s', (after, want) => {
    expect(next('3 * * * *', 'UTC', after)).toBe(want);
  });

  it('runs the story: 07:30 in Shanghai and in Los Angeles', () => {
    expect(next('30 07 * * *', 'Asia/Shanghai', '2026-06-01T00:00:00Z')).toBe('2026-06-01T23:30:00Z');
    expect(next('30 07 * * *', 'America/Los_Angeles', '2026-06-01T00:00:00Z')).toBe('2026-06-01T14:30:00Z');
    expect(next('30 07 * * *', 'America/Los_Angeles', '2026-01-15T00:00:00Z')).toBe('2026-01-15T15:30:00Z');
  });
});

describe('nextFireTime across zones', () => {
  it.each([
    // expression, zone, after, expected
    ['0 9 * * *', 'Asia/Shanghai', '2026-03-08T00:59:59Z', '2026-03-08T01:00:00Z'],
    ['0 9 * * *', 'Asia/Shanghai', '2026-03-08T01:00:00Z', '2026-03-09T01:00:00Z'],
    ['0 9 * * *', 'Europe/London', '2026-01-10T00:00:00Z', '2026-01-10T09:00:00Z'],
    ['0 9 * * *', 'Europe/London', '2026-07-10T00:00:00Z', '2026-07-10T08:00:00Z'],
    ['0 9 * * *', 'Australia/Lord_Howe', '2026-07-10T00:00:00Z', '2026-07-10T22:30:00Z'], // +10:30 in winter
    ['0 9 * * *', 'Australia/Lord_Howe', '2026-12-10T00:00:00Z', '2026-12-10T22:00:00Z'], // +11 in summer
    ['0 0 * * *', 'America/Los_Angeles', '2026-12-31T12:00:00Z', '2027-01-01T08:00:00Z'],
    ['0 0 1 1 *', 'Asia/Shanghai', '2026-06-01T00:00:00Z', '2026-12-31T16:00:00Z'],
  ])('%s in %s after %s is %s', (expr, tz, after, want) => {
    expect(next(expr, tz, after)).toBe(want);
  });

  it('uses the controller default for an unset zone and UTC for ""', () => {
    expect(next('0 9 * * *', undefined, '2026-03-08T00:00:00Z', 'Asia/Shanghai')).toBe('2026-03-08T01:00:00Z');
    expect(next('0 9 * * *', undefined, '2026-03-08T00:00:00Z')).toBe('2026-03-08T09:00:00Z');
    expect(next('0 9 * * *', '', '2026-03-08T00:00:00Z', 'Asia/Shanghai')).toBe('2026-03-08T09:00:00Z');
  });
});

describe('nextFireTime across DST', () => {
  it.each([
    // spring forward: a fixed local time in the gap fires shifted forward by the gap
    ['30 2 * * *', 'America/Los_Angeles', '2026-03-07T12:00:00Z', ['2026-03-08T10:30:00Z', '2026-03-09T09:30:00Z']],
    ['30 2 * * *', 'America/New_York', '2026-03-07T12:00:00Z', ['2026-03-08T07:30:00Z', '2026-03-09T06:30:00Z']],
    ['30 1 * * *', 'Europe/London', '2026-03-28T12:00:00Z', ['2026-03-29T01:30:00Z', '2026-03-30T00:30:00Z']],
    // every minute of the missing 02:xx runs an hour later (01:59 EST is 06:59Z and is not hour 2)
    [
      '* 2 * * *',
      'America/New_York',
      '2026-03-08T06:58:30Z',
      ['2026-03-08T07:00:00Z', '2026-03-08T07:01:00Z', '2026-03-08T07:02:00Z'],
    ],
    // Lord Howe's 30-minute gap (02:00 -> 02:30): 02:15 fires at 02:45 local
    ['15 2 * * *', 'Australia/Lord_Howe', '2026-10-03T12:00:00Z', ['2026-10-03T15:45:00Z', '2026-10-04T15:15:00Z']],
    // fall back: a fixed local time in the repeated hour fires once, at the first occurrence
    ['30 1 * * *', 'America/Los_Angeles', '2026-10-31T12:00:00Z', ['2026-11-01T08:30:00Z', '2026-11-02T09:30:00Z']],
    ['30 1 * * *', 'Europe/London', '2026-10-24T12:00:00Z', ['2026-10-25T00:30:00Z', '2026-10-26T01:30:00Z']],
    ['45 1 * * *', 'Australia/Lord_Howe', '2026-04-04T12:00:00Z', ['2026-04-04T14:45:00Z', '2026-04-05T15:15:00Z']],
    // wildcard or stepped hours fire at each real instant that matches
    [
      '*/30 * * * *',
      'America/New_York',
      '2026-11-01T04:45:00Z',
      [
        '2026-11-01T05:00:00Z',
        '2026-11-01T05:30:00Z',
        '2026-11-01T06:00:00Z',
        '2026-11-01T06:30:00Z',
        '2026-11-01T07:00:00Z',
      ],
    ],
    [
      '*/30 * * * *',
      'America/New_York',
      '2026-03-08T05:45:00Z',
      ['2026-03-08T06:00:00Z', '2026-03-08T06:30:00Z', '2026-03-08T07:00:00Z'],
    ],
    [
      '45 * * * *',
      'Australia/Lord_Howe',
      '2026-04-04T13:00:00Z',
      ['2026-04-04T13:45:00Z', '2026-04-04T14:45:00Z', '2026-04-04T15:15:00Z', '2026-04-04T16:15:00Z'],
    ],
    ['15 * * * *', 'Australia/Lord_Howe', '2026-10-03T14:00:00Z', ['2026-10-03T14:45:00Z', '2026-10-03T16:15:00Z']],
    [
      '0 */2 * * *',
      'Europe/London',
      '2026-03-28T23:30:00Z',
      ['2026-03-29T00:00:00Z', '2026-03-29T01:00:00Z', '2026-03-29T03:00:00Z'],
    ], // 00:00 GMT, 02:00 BST, 04:00 BST
    // 6-field schedules across the fall-back: every real second of the repeated hour
    ['59 59 1 * * *', 'America/New_York', '2026-11-01T05:00:00Z', ['2026-11-01T05:59:59Z', '2026-11-02T06:59:59Z']],
    [
      '0 0 * * * *',
      'America/New_York',
      '2026-11-01T04:30:00Z',
      ['2026-11-01T05:00:00Z', '2026-11-01T06:00:00Z', '2026-11-01T07:00:00Z'],
    ],
  ])('%s in %s after %s', (expr, tz, after, want) => {
    expect(series(expr, tz, after, want.length)).toEqual(want);
  });

  it.each([
    // `after` inside the gap itself (03:00 EDT is the first instant after it): the shifted run is still ahead
    ['30 2 * * *', 'America/New_York', '2026-03-08T07:00:00Z', '2026-03-08T07:30:00Z'],
    ['30 2 * * *', 'America/New_York', '2026-03-08T07:29:59Z', '2026-03-08T07:30:00Z'],
    ['30 2 * * *', 'America/New_York', '2026-03-08T07:30:00Z', '2026-03-09T06:30:00Z'],
    ['30 2 * * *', 'America/Los_Angeles', '2026-03-08T10:00:00Z', '2026-03-08T10:30:00Z'],
    ['15 2 * * *', 'Australia/Lord_Howe', '2026-10-03T15:30:00Z', '2026-10-03T15:45:00Z'],
    // `after` in the second pass of the repeated hour: no second run of a fixed time
    ['30 1 * * *', 'America/New_York', '2026-11-01T06:00:00Z', '2026-11-02T06:30:00Z'],
    // ... but a wildcard-hour rule fires at the second 01:30
    ['30 * * * *', 'America/New_York', '2026-11-01T06:00:00Z', '2026-11-01T06:30:00Z'],
    ['30 * * * *', 'America/New_York', '2026-11-01T05:45:00Z', '2026-11-01T06:30:00Z'],
  ])('%s in %s after %s (inside a transition) is %s', (expr, tz, after, want) => {
    expect(next(expr, tz, after)).toBe(want);
  });

  it('covers where cron-parser falls short (documented in toolchain 3.7)', () => {
    const cp = (expr: string, tz: string, after: string): string =>
      iso(
        CronExpressionParser.parse(expr, { currentDate: new Date(after), tz })
          .next()
          .toDate(),
      );
    // starting inside the gap, cron-parser skips the day's shifted run
    expect(cp('30 2 * * *', 'America/New_York', '2026-03-08T07:00:00Z')).toBe('2026-03-09T06:30:00Z');
    expect(next('30 2 * * *', 'America/New_York', '2026-03-08T07:00:00Z')).toBe('2026-03-08T07:30:00Z');
    // it drops the second 01:45 of Lord Howe's repeated half hour for a wildcard-hour rule
    expect(cp('45 * * * *', 'Australia/Lord_Howe', '2026-04-04T14:50:00Z')).toBe('2026-04-04T16:15:00Z');
    expect(next('45 * * * *', 'Australia/Lord_Howe', '2026-04-04T14:50:00Z')).toBe('2026-04-04T15:15:00Z');
  });
});

describe('nextFireTime: calendar', () => {
  it.each([
    [
      '0 0 31 * *',
      'UTC',
      '2026-01-31T00:00:00Z',
      ['2026-03-31T00:00:00Z', '2026-05-31T00:00:00Z', '2026-07-31T00:00:00Z', '2026-08-31T00:00:00Z'],
    ],
    ['0 0 30 * *', 'UTC', '2026-01-30T00:00:00Z', ['2026-03-30T00:00:00Z', '2026-04-30T00:00:00Z']],
    ['0 0 29 2 *', 'UTC', '2026-01-01T00:00:00Z', ['2028-02-29T00:00:00Z', '2032-02-29T00:00:00Z']],
    ['0 0 29 2 *', 'UTC', '2096-03-01T00:00:00Z', ['2104-02-29T00:00:00Z']], // 2100 is not a leap year
    ['0 0 29 2 *', 'Asia/Shanghai', '2026-03-07T12:00:00Z', ['2028-02-28T16:00:00Z']],
    [
      '0 12 28-31 * *',
      'Europe/London',
      '2026-02-27T00:00:00Z',
      ['2026-02-28T12:00:00Z', '2026-03-28T12:00:00Z', '2026-03-29T11:00:00Z'],
    ],
    // cron's OR rule: the 13th OR every Friday
    [
      '0 0 13 * 5',
      'UTC',
      '2026-02-01T00:00:00Z',
      [
        '2026-02-06T00:00:00Z',
        '2026-02-13T00:00:00Z',
        '2026-02-20T00:00:00Z',
        '2026-02-27T00:00:00Z',
        '2026-03-06T00:00:00Z',
        '2026-03-13T00:00:00Z',
      ],
    ],
    // a day-of-month that never exists in February still fires on February's Mondays
    ['0 0 30 2 1', 'UTC', '2026-01-01T00:00:00Z', ['2026-02-02T00:00:00Z', '2026-02-09T00:00:00Z']],
    // a star in either day field means AND
    ['0 0 * * 1', 'UTC', '2026-02-01T00:00:00Z', ['2026-02-02T00:00:00Z', '2026-02-09T00:00:00Z']],
    // robfig quirk: a stepped star is not a star, so odd days OR Mondays
    [
      '0 0 */2 * 1',
      'UTC',
      '2024-05-01T00:00:00Z',
      ['2024-05-03T00:00:00Z', '2024-05-05T00:00:00Z', '2024-05-06T00:00:00Z', '2024-05-07T00:00:00Z'],
    ],
    ['0 0 * * 7', 'UTC', '2026-02-01T00:00:00Z', ['2026-02-08T00:00:00Z']],
    ['@weekly', 'UTC', '2026-02-01T00:00:00Z', ['2026-02-08T00:00:00Z']],
    ['@monthly', 'Asia/Shanghai', '2026-02-01T00:00:00Z', ['2026-02-28T16:00:00Z']],
    ['@yearly', 'UTC', '2026-02-01T00:00:00Z', ['2027-01-01T00:00:00Z']],
    ['@midnight', 'America/Los_Angeles', '2026-02-01T00:00:00Z', ['2026-02-01T08:00:00Z']],
    ['@hourly', 'UTC', '2026-02-01T00:00:00Z', ['2026-02-01T01:00:00Z']],
    [
      '*/20 30 8 * * *',
      'UTC',
      '2026-02-01T08:30:00Z',
      ['2026-02-01T08:30:20Z', '2026-02-01T08:30:40Z', '2026-02-02T08:30:00Z'],
    ],
    ['0 0 0 1 jan,jul *', 'UTC', '2026-02-01T00:00:00Z', ['2026-07-01T00:00:00Z', '2027-01-01T00:00:00Z']],
  ])('%s in %s after %s', (expr, tz, after, want) => {
    expect(series(expr, tz, after, want.length)).toEqual(want);
  });

  it.each([
    '*/7 * * * *',
    '0 0 13 * 5',
    '0 0 */2 * 1',
    '15 3-21/4 * mar-oct 1-5',
    '0 0 31 * *',
    '0 0 29 2 *',
    '5,35 */3 1,15 * *',
    '0 12 * * sat,sun',
  ])('agrees with cron-parser in UTC for %s', (expr) => {
    const it = CronExpressionParser.parse(expr, { currentDate: new Date('2024-01-01T00:00:00Z'), tz: 'UTC' });
    const theirs = it.take(30).map((d) => d.toDate().toISOString());
    const ours = fireTimesBetween(
      expr,
      'UTC',
      new Date('2024-01-01T00:00:00Z'),
      new Date('2200-01-01T00:00:00Z'),
      30,
    ).map((d) => d.toISOString());
    expect(ours).toEqual(theirs);
  });
});

describe('nextFireTime: bad input', () => {
  it('rejects an unknown zone with a typed error', () => {
    expect(() => nextFireTime('0 9 * * *', 'Not/AZone', new Date('2026-01-01T00:00:00Z'))).toThrow(
      UnknownTimeZoneError,
    );
  });
  it('rejects a bad schedule with a typed error', () => {
    expect(() => nextFireTime('0 0 30 2 *', 'UTC', new Date('2026-01-01T00:00:00Z'))).toThrow(CronSyntaxError);
  });
  it('rejects an invalid Date', () => {
    expect(() => nextFireTime('0 9 * * *', 'UTC', new Date(Number.NaN))).toThrow(RangeError);
  });
});
