import { ExcludeDateSyntaxError } from './errors.js';
import { parseSchedule, scheduleError, type CronSchedule } from './schedule.js';
import { dayMatches } from './wall-clock-match.js';
import { naiveAt } from './zone-clock.js';

/**
 * One entry of a rule's `excludeDates` (a Flotilla extension, after Alibaba's kubernetes-cronhpa-controller), read
 * as a set of calendar days in the rule's time zone:
 *
 * - `2026-12-25`: one date;
 * - `2026-12-24/2027-01-02`: every date from the first to the second, both included (ISO 8601's interval form);
 * - a cron expression, as Alibaba's controller accepts it: six fields with seconds first (`* * * 25 12 *`) or
 *   five (`* * 25 12 *`), or a descriptor (`@yearly`). Only its day fields count (day-of-month, month and
 *   day-of-week, with cron's rule that restricting both means either): "the minimum unit is day".
 */
export type ExcludeDate =
  | { readonly kind: 'dates'; readonly entry: string; readonly first: number; readonly last: number }
  | { readonly kind: 'pattern'; readonly entry: string; readonly schedule: CronSchedule };

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The date as days since 1970-01-01, or undefined when it is not a real calendar date. */
function dayNumber(text: string): number | undefined {
  const m = DATE.exec(text);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(y, mo - 1, d);
  const back = new Date(ms);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return undefined;
  return ms / 86_400_000;
}

function parseDate(entry: string, text: string): number {
  if (!DATE.test(text)) throw new ExcludeDateSyntaxError(entry, `"${text}" is not a date written YYYY-MM-DD`);
  const day = dayNumber(text);
  if (day === undefined) throw new ExcludeDateSyntaxError(entry, `${text} is not a calendar date`);
  return day;
}

/** Parses one entry, throwing {@link ExcludeDateSyntaxError} with what is wrong. */
export function parseExcludeDate(entry: string): ExcludeDate {
  const text = entry.trim();
  if (text === '') throw new ExcludeDateSyntaxError(entry, 'empty entry');
  if (/^\d{4}-/.test(text)) {
    const parts = text.split('/');
    if (parts.length > 2) throw new ExcludeDateSyntaxError(entry, 'a range is two dates joined by one "/"');
    const first = parseDate(entry, parts[0] ?? '');
    const last = parts.length === 2 ? parseDate(entry, parts[1] ?? '') : first;
    if (last < first)
      throw new ExcludeDateSyntaxError(entry, `the range ends (${parts[1]}) before it starts (${parts[0]})`);
    return { kind: 'dates', entry, first, last };
  }
  const cronErr = scheduleError(text);
  if (cronErr !== undefined) {
    throw new ExcludeDateSyntaxError(
      entry,
      `not a date (YYYY-MM-DD), a range (YYYY-MM-DD/YYYY-MM-DD) or a day pattern: ${cronErr}`,
    );
  }
  return { kind: 'pattern', entry, schedule: parseSchedule(text) };
}

/** Why an `excludeDates` entry is invalid, or undefined when it is valid (admission's check). */
export function excludeDateError(entry: string): string | undefined {
  try {
    parseExcludeDate(entry);
    return undefined;
  } catch (err) {
    if (err instanceof ExcludeDateSyntaxError) return err.message;
    throw err;
  }
}

/** The calendar date of `instant` on the wall clock of `timeZone`, as year, month (1-12) and day. */
export function localDate(instant: Date, timeZone: string): { year: number; month: number; day: number } {
  const wall = new Date(naiveAt(timeZone, instant.getTime()));
  return { year: wall.getUTCFullYear(), month: wall.getUTCMonth() + 1, day: wall.getUTCDate() };
}

function covers(x: ExcludeDate, year: number, month: number, day: number): boolean {
  if (x.kind === 'pattern') return x.schedule.months.includes(month) && dayMatches(x.schedule, year, month, day);
  const n = Date.UTC(year, month - 1, day) / 86_400_000;
  return n >= x.first && n <= x.last;
}

/**
 * The first entry of `entries` whose days include the date `instant` falls on in `timeZone`, or undefined when the
 * date is not excluded. Entries are admitted before they get here; one that does not parse excludes nothing.
 */
export function excludingEntry(
  entries: readonly string[] | undefined,
  instant: Date,
  timeZone: string,
): string | undefined {
  if (!entries?.length) return undefined;
  const { year, month, day } = localDate(instant, timeZone);
  for (const entry of entries) {
    let parsed: ExcludeDate;
    try {
      parsed = parseExcludeDate(entry);
    } catch {
      continue;
    }
    if (covers(parsed, year, month, day)) return entry;
  }
  return undefined;
}

/** What a skipped execution's record says, e.g. `skipped: 2026-12-25 (Europe/Berlin) is excluded by excludeDates entry "* * * 25 12 *"`. */
export function excludedMessage(instant: Date, timeZone: string, entry: string): string {
  const { year, month, day } = localDate(instant, timeZone);
  const date = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
  return `skipped: ${date} (${timeZone}) is excluded by excludeDates entry ${JSON.stringify(entry)}`;
}
