import { parseGoDuration } from '@flotilla/api';
import { SimulationSpecError } from './errors.js';

/**
 * Go durations as the CLI writes them (`30s`, `10m`, `1h30m`, `500ms`); a bare number, or a numeric YAML value, is
 * seconds, as kubectl flags take it. Returns milliseconds; a negative duration is refused.
 */
export function parseDuration(value: unknown, path: string): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0)
      throw new SimulationSpecError(
        path,
        `invalid duration ${JSON.stringify(value)}: expected a non-negative number of seconds`,
      );
    return value * 1000;
  }
  if (typeof value !== 'string')
    throw new SimulationSpecError(
      path,
      `invalid duration ${JSON.stringify(value)}: expected a string such as 30s, 10m or 1h30m`,
    );
  const ms = parseGoDuration(value, { bareNumberSeconds: true });
  if (ms === undefined || ms < 0)
    throw new SimulationSpecError(
      path,
      `invalid duration ${JSON.stringify(value)}: expected a duration such as 30s, 10m or 1h30m`,
    );
  return ms;
}
