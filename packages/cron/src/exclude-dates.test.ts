import { describe, expect, it } from 'vitest';
import { excludeDateError, excludedMessage, excludingEntry, parseExcludeDate } from './exclude-dates.js';
import { nextFireTime } from './next-fire-time.js';

type Case = [title: string, entries: string[], instant: string, timeZone: string, excludedBy: string | undefined];

describe('excludingEntry: the date an occurrence falls on, in the rule zone, against excludeDates', () => {
  it.each<Case>([
    // single dates, read on the rule's wall clock, not in UTC
    ['a listed date', ['2026-12-25'], '2026-12-25T08:00:00Z', 'UTC', '2026-12-25'],
    ['the day before it', ['2026-12-25'], '2026-12-24T08:00:00Z', 'UTC', undefined],
    [
      'Berlin is already on the 25th at 23:30 UTC',
      ['2026-12-25'],
      '2026-12-24T23:30:00Z',
      'Europe/Berlin',
      '2026-12-25',
    ],
    ['UTC is still on the 24th then', ['2026-12-25'], '2026-12-24T23:30:00Z', 'UTC', undefined],
    ['Tokyo at midnight of New Year', ['2027-01-01'], '2026-12-31T15:00:00Z', 'Asia/Tokyo', '2027-01-01'],
    ['Los Angeles still on the 31st', ['2027-01-01'], '2027-01-01T05:00:00Z', 'America/Los_Angeles', undefined],
    // ranges, both ends included, across a month and a year
    [
      'a range crossing the year: its first day',
      ['2026-12-24/2027-01-02'],
      '2026-12-24T09:00:00Z',
      'UTC',
      '2026-12-24/2027-01-02',
    ],
    [
      'a range crossing the year: New Year',
      ['2026-12-24/2027-01-02'],
      '2027-01-01T09:00:00Z',
      'UTC',
      '2026-12-24/2027-01-02',
    ],
    [
      'a range crossing the year: its last day',
      ['2026-12-24/2027-01-02'],
      '2027-01-02T23:59:59Z',
      'UTC',
      '2026-12-24/2027-01-02',
    ],
    ['a range crossing the year: the day after', ['2026-12-24/2027-01-02'], '2027-01-03T00:00:00Z', 'UTC', undefined],
    ['a range crossing the year: the day before', ['2026-12-24/2027-01-02'], '2026-12-23T09:00:00Z', 'UTC', undefined],
    ['a range over a leap day', ['2028-02-27/2028-03-01'], '2028-02-29T12:00:00Z', 'UTC', '2028-02-27/2028-03-01'],
    [
      'a range crossing a month, in Sydney',
      ['2026-04-30/2026-05-01'],
      '2026-04-29T14:30:00Z',
      'Australia/Sydney',
      '2026-04-30/2026-05-01',
    ],
    // Alibaba's day patterns: six fields with seconds first, or five; only the day fields count
    ['Alibaba: November 15th', ['* * * 15 11 *'], '2026-11-15T10:00:00Z', 'UTC', '* * * 15 11 *'],
    ['Alibaba: not November 16th', ['* * * 15 11 *'], '2026-11-16T10:00:00Z', 'UTC', undefined],
    ['Alibaba: every Friday', ['* * * * * 5'], '2026-11-27T10:00:00Z', 'UTC', '* * * * * 5'],
    ['Alibaba: a Thursday is not Friday', ['* * * * * 5'], '2026-11-26T10:00:00Z', 'UTC', undefined],
    ['Alibaba: named weekdays', ['* * * ? * SAT,SUN'], '2026-11-29T10:00:00Z', 'UTC', '* * * ? * SAT,SUN'],
    [
      'a five-field pattern: the last week of December',
      ['* * 24-31 12 *'],
      '2026-12-28T10:00:00Z',
      'UTC',
      '* * 24-31 12 *',
    ],
    ['a pattern over month ends', ['* * * 28-31 * *'], '2026-02-28T10:00:00Z', 'UTC', '* * * 28-31 * *'],
    ['a pattern over month ends, not the 1st', ['* * * 28-31 * *'], '2026-03-01T10:00:00Z', 'UTC', undefined],
    ["cron's OR of both day fields: the 1st", ['* * * 1 * MON'], '2026-07-01T10:00:00Z', 'UTC', '* * * 1 * MON'],
    ["cron's OR of both day fields: a Monday", ['* * * 1 * MON'], '2026-07-06T10:00:00Z', 'UTC', '* * * 1 * MON'],
    ['the time fields do not narrow the day', ['0 0 9 25 12 *'], '2026-12-25T18:00:00Z', 'UTC', '0 0 9 25 12 *'],
    ['a descriptor: @yearly is January 1st', ['@yearly'], '2027-01-01T10:00:00Z', 'UTC', '@yearly'],
    [
      'a Friday in Auckland is a Thursday in UTC',
      ['* * * * * 5'],
      '2026-11-26T20:00:00Z',
      'Pacific/Auckland',
      '* * * * * 5',
    ],
    // the first matching entry is named
    [
      'the first entry that matches',
      ['2026-06-01', '* * * * * 3', '2026-06-03'],
      '2026-06-03T10:00:00Z',
      'UTC',
      '* * * * * 3',
    ],
    ['no entries', [], '2026-06-03T10:00:00Z', 'UTC', undefined],
  ])('%s', (_title, entries, instant, timeZone, excludedBy) => {
    expect(excludingEntry(entries, new Date(instant), timeZone)).toBe(excludedBy);
  });
});

describe('excludeDates on DST days: the date of the instant the rule really fires at', () => {
  it.each<
    [
      title: string,
      schedule: string,
      after: string,
      timeZone: string,
      entries: string[],
      fires: string,
      excluded: boolean,
    ]
  >([
    // 02:30 does not exist on 2026-03-08 in New York; the rule fires at 03:30 EDT, still March 8th
    [
      'New York spring-forward, excluded that day',
      '30 2 * * *',
      '2026-03-07T12:00:00Z',
      'America/New_York',
      ['2026-03-08'],
      '2026-03-08T07:30:00.000Z',
      true,
    ],
    [
      'New York spring-forward, the day before excluded',
      '30 2 * * *',
      '2026-03-07T12:00:00Z',
      'America/New_York',
      ['2026-03-07'],
      '2026-03-08T07:30:00.000Z',
      false,
    ],
    // 01:30 happens twice on 2026-11-01; a fixed time fires at the first, on November 1st
    [
      'New York fall-back',
      '30 1 * * *',
      '2026-10-31T12:00:00Z',
      'America/New_York',
      ['* * * 1 11 *'],
      '2026-11-01T05:30:00.000Z',
      true,
    ],
    // Santiago springs forward at midnight: 00:00 of September 6th does not exist, the rule fires at 01:00 that day
    [
      'Santiago midnight gap, excluded that day',
      '0 0 * * *',
      '2026-09-05T12:00:00Z',
      'America/Santiago',
      ['2026-09-06'],
      '2026-09-06T04:00:00.000Z',
      true,
    ],
    [
      'Santiago midnight gap, the day before excluded',
      '0 0 * * *',
      '2026-09-05T12:00:00Z',
      'America/Santiago',
      ['2026-09-05'],
      '2026-09-06T04:00:00.000Z',
      false,
    ],
  ])('%s', (_title, schedule, after, timeZone, entries, fires, excluded) => {
    const at = nextFireTime(schedule, timeZone, new Date(after));
    expect(at.toISOString()).toBe(fires);
    expect(excludingEntry(entries, at, timeZone) !== undefined).toBe(excluded);
  });
});

describe('excludeDateError: what admission says', () => {
  it.each<[entry: string, message: string | undefined]>([
    ['2026-12-25', undefined],
    ['2026-12-24/2027-01-02', undefined],
    ['2026-12-25/2026-12-25', undefined],
    ['* * * 15 11 *', undefined],
    ['* * 15 11 *', undefined],
    ['', 'invalid excludeDates entry "": empty entry'],
    ['2026-02-30', 'invalid excludeDates entry "2026-02-30": 2026-02-30 is not a calendar date'],
    ['2026-13-01', 'invalid excludeDates entry "2026-13-01": 2026-13-01 is not a calendar date'],
    ['2026-12-5', 'invalid excludeDates entry "2026-12-5": "2026-12-5" is not a date written YYYY-MM-DD'],
    [
      '2027-01-02/2026-12-24',
      'invalid excludeDates entry "2027-01-02/2026-12-24": the range ends (2026-12-24) before it starts (2027-01-02)',
    ],
    [
      '2026-12-24/2026-12-25/2026-12-26',
      'invalid excludeDates entry "2026-12-24/2026-12-25/2026-12-26": a range is two dates joined by one "/"',
    ],
    [
      '* * * 32 12 *',
      'invalid excludeDates entry "* * * 32 12 *": not a date (YYYY-MM-DD), a range (YYYY-MM-DD/YYYY-MM-DD) or a day pattern: invalid cron expression "* * * 32 12 *": day-of-month out of range',
    ],
    ['christmas', expect.stringContaining('not a date (YYYY-MM-DD), a range (YYYY-MM-DD/YYYY-MM-DD) or a day pattern')],
  ])('%j', (entry, message) => {
    expect(excludeDateError(entry)).toEqual(message);
  });

  it('parses a range to its first and last day', () => {
    expect(parseExcludeDate('1970-01-02/1970-01-03')).toEqual({
      kind: 'dates',
      entry: '1970-01-02/1970-01-03',
      first: 1,
      last: 2,
    });
  });

  it('names the local date, the zone and the entry in the skip message', () => {
    expect(excludedMessage(new Date('2026-12-24T23:30:00Z'), 'Europe/Berlin', '* * * 25 12 *')).toBe(
      'skipped: 2026-12-25 (Europe/Berlin) is excluded by excludeDates entry "* * * 25 12 *"',
    );
  });
});
