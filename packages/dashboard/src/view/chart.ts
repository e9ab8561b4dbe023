import type { Series } from './trail.js';

/**
 * Series over time as the columns uPlot draws: one sorted time column (epoch ms) of every instant any series has a
 * point at, plus `extraTimes` (so that "now" or a cron run lies on the axis), and per series its value at each of
 * those instants, null where it has no point (drawn with gaps spanned: a step holds its count until the next one, a
 * line joins its samples).
 */
export interface AlignedSeries {
  times: number[];
  values: Array<Array<number | null>>;
}

export function alignSeries(series: readonly Series[], extraTimes: readonly number[] = []): AlignedSeries {
  const times = [...new Set([...series.flatMap((s) => s.points.map((p) => p.t)), ...extraTimes])].sort((a, b) => a - b);
  const index = new Map(times.map((t, i) => [t, i]));
  const values = series.map((s) => {
    const column: Array<number | null> = times.map(() => null);
    // A later point at the same instant wins, as the last write does.
    for (const p of s.points) column[index.get(p.t)!] = p.v;
    return column;
  });
  return { times, values };
}

/**
 * The value axis' range: counts start at 0, so that a change from 3 to 4 does not look like a doubling, and a flat
 * or empty extent is widened by one so that it has a height.
 */
export function valueRange(min: number | null, max: number | null): [number, number] {
  const lo = Math.min(0, min ?? 0);
  const hi = max ?? 1;
  return hi > lo ? [lo, hi] : [lo, lo + 1];
}

/** The time axis' range: a single instant (or none) is widened by a minute either side. */
export function timeRange(times: readonly number[]): [number, number] {
  if (times.length === 0) return [0, 60_000];
  const lo = times[0]!;
  const hi = times.at(-1)!;
  return hi > lo ? [lo, hi] : [lo - 60_000, hi + 60_000];
}
