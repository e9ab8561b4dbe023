/**
 * Wall-clock arithmetic in an IANA zone through Intl. A "naive" time is the zone's wall-clock reading encoded as
 * if it were UTC milliseconds, so plain UTC date arithmetic walks wall-clock fields without any DST effect.
 */

const DAY_MS = 86_400_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

function exactOffset(timeZone: string, whole: number): number {
  const p: Record<string, string> = {};
  for (const part of formatter(timeZone).formatToParts(whole)) p[part.type] = part.value;
  const year = p.era === 'BC' ? 1 - Number(p.year) : Number(p.year);
  const naive = new Date(0);
  naive.setUTCFullYear(year, Number(p.month) - 1, Number(p.day));
  naive.setUTCHours(Number(p.hour), Number(p.minute), Number(p.second), 0);
  return naive.getTime() - whole;
}

const HOUR_MS = 3_600_000;
const MAX_CACHED_HOURS = 100_000;
/** Per zone, per UTC hour: the offset when it is constant through the hour, null when a transition falls in it. */
const hourCache = new Map<string, Map<number, number | null>>();

/** The zone's UTC offset at `instantMs` in milliseconds (wall clock minus UTC). */
export function offsetAt(timeZone: string, instantMs: number): number {
  if (timeZone === 'UTC') return 0;
  const whole = Math.floor(instantMs / 1000) * 1000;
  // Intl formatting costs microseconds; one lookup per zone-hour keeps a burst of next-time computations cheap.
  // No zone has two transitions within an hour, so equal offsets at both ends mean constant in between.
  let cache = hourCache.get(timeZone);
  if (!cache) {
    cache = new Map();
    hourCache.set(timeZone, cache);
  }
  const hour = Math.floor(whole / HOUR_MS);
  let cached = cache.get(hour);
  if (cached === undefined) {
    const start = exactOffset(timeZone, hour * HOUR_MS);
    cached = start === exactOffset(timeZone, hour * HOUR_MS + HOUR_MS - 1000) ? start : null;
    if (cache.size >= MAX_CACHED_HOURS) cache.clear();
    cache.set(hour, cached);
  }
  return cached ?? exactOffset(timeZone, whole);
}

/** The zone's wall clock at `instantMs`, as a naive time, to the second. */
export function naiveAt(timeZone: string, instantMs: number): number {
  const whole = Math.floor(instantMs / 1000) * 1000;
  return whole + offsetAt(timeZone, whole);
}

/** How a wall-clock reading maps to real instants. */
export type WallTime =
  | { readonly kind: 'unique'; readonly instant: number }
  /** Repeated by a fall-back: `first` is the earlier instant. */
  | { readonly kind: 'repeated'; readonly first: number; readonly second: number }
  /** Skipped by a spring-forward: `shifted` reads the wall time with the offset before the gap, which lands
   * the gap's length later (Temporal's "compatible" disambiguation). */
  | { readonly kind: 'skipped'; readonly shifted: number };

/** Resolves a naive wall time. Assumes at most one offset transition within a day of it, true of every zone. */
export function resolveWallTime(timeZone: string, naive: number): WallTime {
  const before = offsetAt(timeZone, naive - DAY_MS);
  const after = offsetAt(timeZone, naive + DAY_MS);
  if (before === after) return { kind: 'unique', instant: naive - before };
  const early = naive - before;
  const late = naive - after;
  const earlyOk = naiveAt(timeZone, early) === naive;
  const lateOk = naiveAt(timeZone, late) === naive;
  if (earlyOk && lateOk && early !== late) {
    return { kind: 'repeated', first: Math.min(early, late), second: Math.max(early, late) };
  }
  if (earlyOk) return { kind: 'unique', instant: early };
  if (lateOk) return { kind: 'unique', instant: late };
  return { kind: 'skipped', shifted: early };
}
