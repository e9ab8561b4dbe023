import { SimulationSpecError } from './errors.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const PART = /^(\d+(?:\.\d+)?)(ms|s|m|h)/;

/**
 * Go-style durations as the CLI writes them (`30s`, `10m`, `1h30m`, `500ms`); a bare number, or a numeric YAML
 * value, is seconds, as kubectl flags take it. Returns milliseconds.
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
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  let rest = value;
  let total = 0;
  while (rest.length > 0) {
    const m = PART.exec(rest);
    if (!m) break;
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    rest = rest.slice(m[0].length);
  }
  if (value.length === 0 || rest.length > 0)
    throw new SimulationSpecError(
      path,
      `invalid duration ${JSON.stringify(value)}: expected a duration such as 30s, 10m or 1h30m`,
    );
  return total;
}
