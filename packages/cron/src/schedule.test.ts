import { describe, expect, it } from 'vitest';
import { CronSyntaxError } from './errors.js';
import { parseSchedule, scheduleError } from './schedule.js';

describe('parseSchedule', () => {
  it.each([
    // expression, minutes, hours, days of month, months, days of week
    ['0 0 1 1 *', [0], [0], [1], [1], [0, 1, 2, 3, 4, 5, 6]],
    ['*/15 9-17 * * mon-fri', [0, 15, 30, 45], [9, 10, 11, 12, 13, 14, 15, 16, 17], 'all', 'all', [1, 2, 3, 4, 5]],
    ['5,10-12 */6 1/10 JAN,jul Sun', [5, 10, 11, 12], [0, 6, 12, 18], [1, 11, 21, 31], [1, 7], [0]],
    ['0 0 * * 7', [0], [0], 'all', 'all', [0]],
    ['0 0 * * 5-7', [0], [0], 'all', 'all', [0, 5, 6]],
    ['0 0 ? * 1/2', [0], [0], 'all', 'all', [1, 3, 5]],
    ['30 08 * * *', [30], [8], 'all', 'all', [0, 1, 2, 3, 4, 5, 6]],
  ])('%s', (expr, minutes, hours, dom, months, dow) => {
    const s = parseSchedule(expr);
    expect(s.seconds).toEqual([0]);
    expect(s.minutes).toEqual(minutes);
    expect(s.hours).toEqual(hours);
    expect(s.daysOfMonth).toEqual(dom === 'all' ? Array.from({ length: 31 }, (_, i) => i + 1) : dom);
    expect(s.months).toEqual(months === 'all' ? Array.from({ length: 12 }, (_, i) => i + 1) : months);
    expect(s.daysOfWeek).toEqual(dow);
    expect(s.hasSeconds).toBe(false);
  });

  it.each([
    ['@yearly', '0 0 1 1 *'],
    ['@annually', '0 0 1 1 *'],
    ['@monthly', '0 0 1 * *'],
    ['@weekly', '0 0 * * 0'],
    ['@daily', '0 0 * * *'],
    ['@midnight', '0 0 * * *'],
    ['@hourly', '0 * * * *'],
    ['@HOURLY', '0 * * * *'],
  ])('descriptor %s means %s', (descriptor, expanded) => {
    const { source: _a, ...d } = parseSchedule(descriptor);
    const { source: _b, ...e } = parseSchedule(expanded);
    expect(d).toEqual(e);
  });

  it('parses an expression once and shares the frozen result; a bad one throws every time', () => {
    const a = parseSchedule('15 9 * * 1-5');
    expect(parseSchedule('15 9 * * 1-5')).toBe(a);
    expect(Object.isFrozen(a) && Object.isFrozen(a.daysOfWeek)).toBe(true);
    expect(a.daysOfWeek).toEqual([1, 2, 3, 4, 5]);
    expect(() => parseSchedule('61 * * * *')).toThrow(CronSyntaxError);
    expect(() => parseSchedule('61 * * * *')).toThrow(CronSyntaxError);
  });

  it('accepts a leading seconds field as the 6-field extension', () => {
    const s = parseSchedule('*/20 30 8 * * *');
    expect(s.hasSeconds).toBe(true);
    expect(s.seconds).toEqual([0, 20, 40]);
    expect(s.minutes).toEqual([30]);
    expect(s.hours).toEqual([8]);
  });

  it.each([
    ['0 0 13 * 5', false, false],
    ['0 0 * * 5', true, false],
    ['0 0 13 * *', false, true],
    ['0 0 */2 * 1', false, false], // a stepped star is not unrestricted (robfig/cron)
    ['0 0 */1 * 1', true, false],
    ['0 0 ? * 1', true, false],
  ])('day field stars of %s: dom %s, dow %s', (expr, domStar, dowStar) => {
    const s = parseSchedule(expr);
    expect(s.dayOfMonthStar).toBe(domStar);
    expect(s.dayOfWeekStar).toBe(dowStar);
  });

  it.each([
    ['0 2 * * *', true],
    ['0 1,2 * * *', true],
    ['0 1-3 * * *', true],
    ['0 * * * *', false],
    ['0 */2 * * *', false],
    ['0 1-5/2 * * *', false],
    ['0 3/4 * * *', false],
  ])('hour field of %s is fixed: %s', (expr, fixed) => {
    expect(parseSchedule(expr).fixedHour).toBe(fixed);
  });
});

describe('scheduleError', () => {
  it.each([
    ['61 * * * *', 'minute out of range'],
    ['* 24 * * *', 'hour out of range'],
    ['* * 0 * *', 'day-of-month out of range'],
    ['* * 32 * *', 'day-of-month out of range'],
    ['* * * 0 *', 'month out of range'],
    ['* * * 13 *', 'month out of range'],
    ['* * * * 8', 'day-of-week out of range'],
    ['60 * * * * *', 'second out of range'],
    ['', 'empty expression'],
    ['   ', 'empty expression'],
    ['* * * *', 'expected 5 fields (minute hour day-of-month month day-of-week) or 6 with seconds first, got 4'],
    ['0 0 1 1 * 2026', 'day-of-week out of range'], // read as seconds-first, not a trailing year
    ['abc * * * *', 'minute: "abc" is not a number'],
    ['* * * foo *', 'month: "foo" is not a number or a name'],
    ['* * * * mon-', 'day-of-week: "mon-" is not a value, range or step'],
    ['1,,2 * * * *', 'minute: empty list item in "1,,2"'],
    ['*/0 * * * *', 'minute: step "0" must be a positive integer'],
    ['*/x * * * *', 'minute: step "x" must be a positive integer'],
    ['1/2/3 * * * *', 'minute: "1/2/3" has more than one step'],
    ['30-10 * * * *', 'minute: range "30-10" runs backwards'],
    ['? * * * *', 'minute: "?" is only allowed in day-of-month and day-of-week'],
    ['0 0 L * *', 'day-of-month: "L" is not a number'],
    ['0 0 * * 1#1', 'day-of-week: "1#1" is not a number or a name'],
    ['@every 1h', 'unknown descriptor "@every 1h"'],
    ['@reboot', 'unknown descriptor "@reboot"'],
    ['CRON_TZ=UTC 0 9 * * *', "a CRON_TZ=/TZ= prefix is not supported: set the rule's timeZone instead"],
    ['TZ=Asia/Shanghai 0 9 * * *', 'prefix is not supported'],
    ['0 0 30 2 *', 'never fires: day-of-month 30 never occurs in month 2'],
    ['0 0 31 4,6,9,11 *', 'never fires: day-of-month 31 never occurs in month 4,6,9,11'],
    ['0 0 30,31 feb *', 'never fires: day-of-month 30,31 never occurs in month feb'],
  ])('%j is rejected: %s', (expr, reason) => {
    const msg = scheduleError(expr);
    expect(msg).toBeDefined();
    expect(msg).toContain(`invalid cron expression "${expr}": `);
    expect(msg).toContain(reason);
    expect(() => parseSchedule(expr)).toThrow(CronSyntaxError);
  });

  it('names the field in the exact admission wording', () => {
    expect(scheduleError('61 * * * *')).toBe('invalid cron expression "61 * * * *": minute out of range');
  });

  it.each([
    '0 0 29 2 *', // fires in leap years
    '0 0 30 2 1', // OR rule: every Monday
    '0 0 31 * *',
    '3 * * * *',
    '30 08 * * *',
    '0 11 * * *',
    '*/5 * * * * *',
    '@midnight',
    '0 0 * * SAT,sun',
    ' 0 0  * * * ',
  ])('%j is accepted', (expr) => {
    expect(scheduleError(expr)).toBeUndefined();
  });

  it('exposes the parts of the error', () => {
    try {
      parseSchedule('0 0 30 2 *');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(CronSyntaxError);
      expect((err as CronSyntaxError).expression).toBe('0 0 30 2 *');
      expect((err as CronSyntaxError).reason).toMatch(/^never fires/);
    }
  });
});
