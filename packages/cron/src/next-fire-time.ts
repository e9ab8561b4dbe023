import { NoFireTimeError } from './errors.js';
import { parseSchedule, type CronSchedule } from './schedule.js';
import { DEFAULT_CONTROLLER_TIME_ZONE, resolveTimeZone } from './time-zone.js';
import { nextWallMatch } from './wall-clock-match.js';
import { naiveAt, offsetAt, resolveWallTime } from './zone-clock.js';

const TWO_DAYS_MS = 2 * 86_400_000;

/** The real instants a matching wall time fires at, by Flotilla's DST rules. */
function instantsOf(s: CronSchedule, timeZone: string, naive: number): number[] {
  const w = resolveWallTime(timeZone, naive);
  switch (w.kind) {
    case 'unique':
      return [w.instant];
    case 'repeated':
      // A fixed local time means one run a day; a wildcard hour means "every real hour that matches".
      return s.fixedHour ? [w.first] : [w.first, w.second];
    case 'skipped':
      // Shifting a wildcard-hour match would only duplicate the next real match, so it is dropped instead.
      return s.fixedHour ? [w.shifted] : [];
  }
}

function offsetSpread(timeZone: string, instant: number): { min: number; max: number } {
  const offsets = [
    offsetAt(timeZone, instant - TWO_DAYS_MS),
    offsetAt(timeZone, instant),
    offsetAt(timeZone, instant + TWO_DAYS_MS),
  ];
  return { min: Math.min(...offsets), max: Math.max(...offsets) };
}

/**
 * The first instant strictly after `after` at which `schedule` fires in `timeZone` (unset = `defaultTimeZone`,
 * `""` = UTC), searched from the next whole second as Karmada does.
 *
 * DST, deliberately unlike Karmada and cron-parser: a fixed local time inside a spring-forward gap fires shifted
 * forward by the gap's length (02:30 -> 03:30 on a one-hour gap), also when `after` is itself inside the gap; a
 * fixed local time in a repeated fall-back hour fires once, at its first occurrence; a rule with a wildcard or
 * step in the hour field fires at each real instant whose wall clock matches.
 */
export function nextFireTime(
  schedule: string | CronSchedule,
  timeZone: string | undefined,
  after: Date,
  defaultTimeZone: string = DEFAULT_CONTROLLER_TIME_ZONE,
): Date {
  const s = typeof schedule === 'string' ? parseSchedule(schedule) : schedule;
  const zone = resolveTimeZone(timeZone, defaultTimeZone);
  const a = after.getTime();
  if (Number.isNaN(a)) throw new RangeError('nextFireTime: `after` is an invalid Date');
  const fail = (): never => {
    throw new NoFireTimeError(s.source, zone, after);
  };
  if (zone === 'UTC') return new Date(nextWallMatch(s, Math.floor(a / 1000) * 1000 + 1000) ?? fail());

  // A match whose wall time reads earlier than `after`'s can still fire later (the second pass of a repeated
  // hour, or a gap time shifted forward), so the walk starts the largest nearby offset change earlier.
  const spread = offsetSpread(zone, a);
  let w: number | undefined = naiveAt(zone, a) - (spread.max - spread.min);
  let best: number | undefined;
  let stopAfter = Number.POSITIVE_INFINITY;
  for (;;) {
    w = nextWallMatch(s, w);
    if (w === undefined || w > stopAfter) break;
    for (const instant of instantsOf(s, zone, w)) {
      if (instant > a && (best === undefined || instant < best)) {
        best = instant;
        // Any later wall time maps to an instant after `best` once it is past best's wall clock at the
        // largest nearby offset.
        stopAfter = best + offsetSpread(zone, best).max;
      }
    }
    w += 1000;
  }
  return new Date(best ?? fail());
}

/** The fire times in (after, until], at most `limit` of them, in order. */
export function fireTimesBetween(
  schedule: string | CronSchedule,
  timeZone: string | undefined,
  after: Date,
  until: Date,
  limit: number,
  defaultTimeZone: string = DEFAULT_CONTROLLER_TIME_ZONE,
): Date[] {
  const s = typeof schedule === 'string' ? parseSchedule(schedule) : schedule;
  const out: Date[] = [];
  let t = after;
  while (out.length < limit) {
    t = nextFireTime(s, timeZone, t, defaultTimeZone);
    if (t > until) break;
    out.push(t);
  }
  return out;
}
