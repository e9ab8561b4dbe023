import type { CronSchedule } from './schedule.js';

/** Far enough for a February 29 rule to reach the next leap year even across a skipped century leap day. */
const HORIZON_YEARS = 9;

function ceilIn(values: readonly number[], v: number): number | undefined {
  for (const x of values) if (x >= v) return x;
  return undefined;
}

/** The day rule of robfig/cron: AND when either day field is a star, OR otherwise. */
export function dayMatches(s: CronSchedule, year: number, month: number, day: number): boolean {
  const dom = s.daysOfMonth.includes(day);
  const dow = s.daysOfWeek.includes(new Date(Date.UTC(year, month - 1, day)).getUTCDay());
  return s.dayOfMonthStar || s.dayOfWeekStar ? dom && dow : dom || dow;
}

/**
 * The earliest naive wall-clock time at or after `fromNaive` (rounded up to a whole second) whose fields match,
 * or undefined when none does within the horizon.
 */
export function nextWallMatch(s: CronSchedule, fromNaive: number): number | undefined {
  let t = Math.ceil(fromNaive / 1000) * 1000;
  const limitYear = new Date(t).getUTCFullYear() + HORIZON_YEARS;
  for (;;) {
    const d = new Date(t);
    const y = d.getUTCFullYear();
    const mo = d.getUTCMonth() + 1;
    const day = d.getUTCDate();
    const h = d.getUTCHours();
    const mi = d.getUTCMinutes();
    if (y > limitYear) return undefined;
    const nextMonth = ceilIn(s.months, mo);
    if (nextMonth === undefined) {
      t = Date.UTC(y + 1, 0, 1);
      continue;
    }
    if (nextMonth !== mo) {
      t = Date.UTC(y, nextMonth - 1, 1);
      continue;
    }
    if (!dayMatches(s, y, mo, day)) {
      t = Date.UTC(y, mo - 1, day + 1);
      continue;
    }
    const nextHour = ceilIn(s.hours, h);
    if (nextHour === undefined) {
      t = Date.UTC(y, mo - 1, day + 1);
      continue;
    }
    if (nextHour !== h) {
      t = Date.UTC(y, mo - 1, day, nextHour);
      continue;
    }
    const nextMinute = ceilIn(s.minutes, mi);
    if (nextMinute === undefined) {
      t = Date.UTC(y, mo - 1, day, h + 1);
      continue;
    }
    if (nextMinute !== mi) {
      t = Date.UTC(y, mo - 1, day, h, nextMinute);
      continue;
    }
    const nextSecond = ceilIn(s.seconds, d.getUTCSeconds());
    if (nextSecond === undefined) {
      t = Date.UTC(y, mo - 1, day, h, mi + 1);
      continue;
    }
    return Date.UTC(y, mo - 1, day, h, mi, nextSecond);
  }
}
