import { describe, expect, it } from 'vitest';
import { UnknownTimeZoneError } from './errors.js';
import { resolveTimeZone, timeZoneError } from './time-zone.js';

describe('timeZoneError', () => {
  it.each([
    '',
    'UTC',
    'Asia/Shanghai',
    'America/Los_Angeles',
    'Europe/London',
    'Australia/Lord_Howe',
    'US/Pacific',
    'Etc/GMT+8',
  ])('%j is a zone', (tz) => {
    expect(timeZoneError(tz)).toBeUndefined();
  });

  it.each([
    ['A/B', 'unknown time zone "A/B"'],
    ['Mars/Olympus_Mons', 'unknown time zone "Mars/Olympus_Mons"'],
    ['+08:00', 'unknown time zone "+08:00"'],
    ['asia/shanghai', 'unknown time zone "asia/shanghai" (did you mean "Asia/Shanghai"?)'],
    [' UTC', 'unknown time zone " UTC"'],
  ])('%j is rejected', (tz, message) => {
    expect(timeZoneError(tz)).toBe(message);
  });
});

describe('resolveTimeZone', () => {
  it.each([
    [undefined, 'Asia/Shanghai', 'Asia/Shanghai'],
    [undefined, undefined, 'UTC'],
    ['', 'Asia/Shanghai', 'UTC'],
    ['Europe/London', 'Asia/Shanghai', 'Europe/London'],
  ])('rule %j with controller default %j runs in %s', (tz, def, want) => {
    expect(resolveTimeZone(tz, def)).toBe(want);
  });

  it('throws a typed error for an unknown zone, also a bad controller default', () => {
    expect(() => resolveTimeZone('No/Where')).toThrow(UnknownTimeZoneError);
    expect(() => resolveTimeZone(undefined, 'No/Where')).toThrow('unknown time zone "No/Where"');
  });
});
