import { parseGoDuration } from '../duration.js';

/**
 * Seconds in a duration written as Crane's `utils.ParseDuration` reads it: `<N>d` for whole days, otherwise Go's
 * `time.ParseDuration` syntax (`90s`, `1h30m`, `1.5h`). Returns undefined for anything else, including "".
 */
export function parseCraneDuration(text: string): number | undefined {
  const days = /^(\d+)d$/.exec(text);
  if (days) return Number(days[1]) * 86_400;
  const ms = parseGoDuration(text);
  return ms === undefined ? undefined : ms / 1000;
}
