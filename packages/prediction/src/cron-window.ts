import { normalizeEhpaSchedule, type EhpaCron } from '@flotilla/api';
import {
  CronSyntaxError,
  NoFireTimeError,
  nextFireTime,
  parseSchedule,
  timeZoneError,
  type CronSchedule,
} from '@flotilla/cron';
import { CronWindowError } from './errors.js';

/** One entry of an EHPA's `spec.crons`. */
export type CronWindow = Readonly<Pick<EhpaCron, 'name' | 'timezone' | 'start' | 'end' | 'targetReplicas'>>;

/** Go's zero time in Unix seconds: what robfig/cron's `Next` returns for a schedule that never fires. */
const GO_ZERO_TIME_SECONDS = -62_135_596_800;

/**
 * The zone a cron window runs in. Unset (or "") is UTC, as Crane up to v0.7.0 and its docs have it; `Local` is the
 * controller's zone (`controllerZone`, UTC unless configured). Crane HEAD reads unset as the adapter's process
 * zone: Flotilla keeps the documented UTC so that a window does not move with the host it runs on.
 */
export function cronZone(timezone: string | undefined, controllerZone = 'UTC'): string {
  if (timezone === undefined || timezone === '') return 'UTC';
  return timezone === 'Local' ? controllerZone : timezone;
}

export interface ParsedCronWindow {
  readonly cron: CronWindow;
  readonly zone: string;
  readonly start: CronSchedule;
  readonly end: CronSchedule;
}

/**
 * Parses a window's schedules (robfig's standard syntax: `?` for `*`, names, descriptors) and zone, throwing
 * {@link CronWindowError} with the field path (`<path>.start`, `.end`, `.timezone`). Crane fails the whole cron
 * metric for an unparseable window, and so does {@link cronMetric}.
 */
export function parseCronWindow(cron: CronWindow, path: string, controllerZone = 'UTC'): ParsedCronWindow {
  const zone = cronZone(cron.timezone, controllerZone);
  const zoneError = zone === 'UTC' ? undefined : timeZoneError(zone);
  if (zoneError) {
    const local = cron.timezone === 'Local' ? " (Local is the controller's zone)" : '';
    throw new CronWindowError(`${path}.timezone`, `${zoneError}${local}`);
  }
  const schedule = (field: 'start' | 'end'): CronSchedule => {
    try {
      return parseSchedule(normalizeEhpaSchedule(cron[field]));
    } catch (err) {
      if (err instanceof CronSyntaxError) throw new CronWindowError(`${path}.${field}`, err.message);
      throw err;
    }
  };
  return { cron, zone, start: schedule('start'), end: schedule('end') };
}

/** robfig's `Next` in Unix seconds: the first fire time strictly after `now`'s whole second, Go's zero time if none. */
export function nextFireSeconds(schedule: CronSchedule, zone: string, now: Date): number {
  try {
    return nextFireTime(schedule, zone, now).getTime() / 1000;
  } catch (err) {
    if (err instanceof NoFireTimeError) return GO_ZERO_TIME_SECONDS;
    throw err;
  }
}

/**
 * Crane's `CronTrigger.IsActive`: with S and E the next start and next end after `now` (in the window's zone, whole
 * seconds), the window is inactive when S < E and now < S, otherwise active iff now ≤ E. As both lie in the
 * future this means "active iff the end comes no earlier than the next start", i.e. the window is [start, end):
 * active from the start second, inactive from the end second; a window whose end precedes its start in the day
 * spans midnight; start = end is always active.
 *
 * Next fire times follow Flotilla's DST rules (packages/cron): a start or end inside a spring-forward gap moves
 * forward by the gap, and one in a repeated fall-back hour happens once, at its first occurrence.
 */
export function isCronWindowActive(window: ParsedCronWindow, now: Date): boolean {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const s = nextFireSeconds(window.start, window.zone, now);
  const e = nextFireSeconds(window.end, window.zone, now);
  if (s < e && nowSeconds < s) return false;
  return nowSeconds <= e;
}
