import { CronSyntaxError } from './errors.js';

/**
 * A parsed cron schedule. Field values are sorted ascending and de-duplicated; day-of-week uses 0 = Sunday
 * (7 is folded into 0).
 */
export interface CronSchedule {
  /** The expression as written (before descriptor expansion). */
  readonly source: string;
  readonly seconds: readonly number[];
  readonly minutes: readonly number[];
  readonly hours: readonly number[];
  readonly daysOfMonth: readonly number[];
  readonly months: readonly number[];
  readonly daysOfWeek: readonly number[];
  /**
   * Day-of-month / day-of-week are unrestricted (`*` or `?` without a step above 1). When either is a star a day
   * must match both fields; when neither is, matching either is enough (cron's OR rule, as robfig/cron does).
   */
  readonly dayOfMonthStar: boolean;
  readonly dayOfWeekStar: boolean;
  /**
   * The hour field names fixed hours (no `*`, `?` or step). Fixed local times are shifted across a
   * spring-forward gap and fire once in a repeated hour; wildcard hours fire at each real matching instant.
   */
  readonly fixedHour: boolean;
  /** Written in the 6-field form with a leading seconds field (a Flotilla extension). */
  readonly hasSeconds: boolean;
}

interface FieldDef {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: Readonly<Record<string, number>>;
  readonly questionMark?: boolean;
}

const MONTH_NAMES: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};
const DAY_NAMES: Record<string, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };

const SECOND: FieldDef = { name: 'second', min: 0, max: 59 };
const MINUTE: FieldDef = { name: 'minute', min: 0, max: 59 };
const HOUR: FieldDef = { name: 'hour', min: 0, max: 23 };
const DAY_OF_MONTH: FieldDef = { name: 'day-of-month', min: 1, max: 31, questionMark: true };
const MONTH: FieldDef = { name: 'month', min: 1, max: 12, names: MONTH_NAMES };
// 7 is accepted as Sunday (the CronFederatedHPA proposal's syntax note allows it) and folded into 0 after parsing.
const DAY_OF_WEEK: FieldDef = { name: 'day-of-week', min: 0, max: 7, names: DAY_NAMES, questionMark: true };

const DESCRIPTORS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** The most days each month can have (February 29 exists in leap years). */
const MAX_DAYS = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

interface ParsedField {
  readonly values: number[];
  readonly star: boolean;
  readonly wildcard: boolean;
}

function parseValue(text: string, def: FieldDef, expr: string): number {
  const named = def.names?.[text.toLowerCase()];
  if (named !== undefined) return named;
  if (!/^\d+$/.test(text)) {
    throw new CronSyntaxError(expr, `${def.name}: "${text}" is not a number${def.names ? ' or a name' : ''}`);
  }
  const n = Number(text);
  if (n < def.min || n > def.max) throw new CronSyntaxError(expr, `${def.name} out of range`);
  return n;
}

function parseField(text: string, def: FieldDef, expr: string): ParsedField {
  const values = new Set<number>();
  let star = false;
  let wildcard = false;
  for (const part of text.split(',')) {
    if (part === '') throw new CronSyntaxError(expr, `${def.name}: empty list item in "${text}"`);
    const [rangeText = '', stepText, extra] = part.split('/');
    if (extra !== undefined) throw new CronSyntaxError(expr, `${def.name}: "${part}" has more than one step`);
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d+$/.test(stepText) || Number(stepText) === 0) {
        throw new CronSyntaxError(expr, `${def.name}: step "${stepText}" must be a positive integer`);
      }
      step = Number(stepText);
      wildcard = true;
    }
    let lo: number;
    let hi: number;
    if (rangeText === '*' || rangeText === '?') {
      if (rangeText === '?' && !def.questionMark) {
        throw new CronSyntaxError(expr, `${def.name}: "?" is only allowed in day-of-month and day-of-week`);
      }
      lo = def.min;
      hi = def.name === 'day-of-week' ? 6 : def.max;
      wildcard = true;
      // As robfig/cron: a stepped star (*/2) no longer counts as unrestricted for the day OR rule.
      if (step === 1) star = true;
    } else {
      const bounds = rangeText.split('-');
      if (bounds.length > 2 || bounds.some((b) => b === '')) {
        throw new CronSyntaxError(expr, `${def.name}: "${part}" is not a value, range or step`);
      }
      lo = parseValue(bounds[0] ?? '', def, expr);
      const openEnd = def.name === 'day-of-week' ? 6 : def.max;
      hi = bounds.length === 2 ? parseValue(bounds[1] ?? '', def, expr) : stepText !== undefined ? openEnd : lo;
      if (lo > hi) throw new CronSyntaxError(expr, `${def.name}: range "${rangeText}" runs backwards`);
    }
    for (let v = lo; v <= hi; v += step) values.add(def.name === 'day-of-week' && v === 7 ? 0 : v);
  }
  return { values: [...values].sort((a, b) => a - b), star, wildcard };
}

/** Parsed schedules by expression: planning parses every rule at every due time, and a burst repeats a few. */
const parsedSchedules = new Map<string, CronSchedule>();
const MAX_PARSED_SCHEDULES = 10_000;

/** Parses a schedule, throwing {@link CronSyntaxError} for anything that is malformed or can never fire. */
export function parseSchedule(expression: string): CronSchedule {
  const known = parsedSchedules.get(expression);
  if (known) return known;
  const parsed = parseUncached(expression);
  if (parsedSchedules.size >= MAX_PARSED_SCHEDULES) parsedSchedules.clear();
  parsedSchedules.set(expression, parsed);
  return parsed;
}

function parseUncached(expression: string): CronSchedule {
  const trimmed = expression.trim();
  if (trimmed === '') throw new CronSyntaxError(expression, 'empty expression');
  if (/^(CRON_)?TZ=/.test(trimmed)) {
    throw new CronSyntaxError(expression, "a CRON_TZ=/TZ= prefix is not supported: set the rule's timeZone instead");
  }
  let body = trimmed;
  if (trimmed.startsWith('@')) {
    const expanded = DESCRIPTORS[trimmed.toLowerCase()];
    if (expanded === undefined) {
      throw new CronSyntaxError(
        expression,
        `unknown descriptor "${trimmed}" (supported: ${Object.keys(DESCRIPTORS).join(', ')})`,
      );
    }
    body = expanded;
  }
  const fields = body.split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) {
    throw new CronSyntaxError(
      expression,
      `expected 5 fields (minute hour day-of-month month day-of-week) or 6 with seconds first, got ${fields.length}`,
    );
  }
  const hasSeconds = fields.length === 6;
  const [secText, minText, hourText, domText, monText, dowText] = hasSeconds ? fields : ['0', ...fields];
  const seconds = parseField(secText ?? '', SECOND, expression);
  const minutes = parseField(minText ?? '', MINUTE, expression);
  const hours = parseField(hourText ?? '', HOUR, expression);
  const dom = parseField(domText ?? '', DAY_OF_MONTH, expression);
  const months = parseField(monText ?? '', MONTH, expression);
  const dow = parseField(dowText ?? '', DAY_OF_WEEK, expression);

  // With the OR rule any listed weekday fires every month; only a day-of-month ANDed with every weekday can
  // name dates that do not exist (0 0 30 2 *), which Karmada admits and then never runs.
  if (dow.star && !dom.star) {
    const possible = months.values.some((m) => dom.values.some((d) => d <= (MAX_DAYS[m] ?? 0)));
    if (!possible) {
      throw new CronSyntaxError(expression, `never fires: day-of-month ${domText} never occurs in month ${monText}`);
    }
  }
  // Frozen: one parsed schedule is shared by every caller of the same expression.
  return Object.freeze({
    source: expression,
    seconds: Object.freeze(seconds.values),
    minutes: Object.freeze(minutes.values),
    hours: Object.freeze(hours.values),
    daysOfMonth: Object.freeze(dom.values),
    months: Object.freeze(months.values),
    daysOfWeek: Object.freeze(dow.values),
    dayOfMonthStar: dom.star,
    dayOfWeekStar: dow.star,
    fixedHour: !hours.wildcard,
    hasSeconds,
  });
}

/**
 * Returns an error message when `expr` is not a schedule Flotilla can fire, otherwise undefined. Admission and
 * execution share {@link parseSchedule}, so whatever is admitted can run.
 */
export function scheduleError(expr: string): string | undefined {
  try {
    parseSchedule(expr);
    return undefined;
  } catch (err) {
    if (err instanceof CronSyntaxError) return err.message;
    throw err;
  }
}
