const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3, // U+00B5 micro sign
  μs: 1e-3, // U+03BC Greek mu
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};
const DURATION = /^([+-]?)((?:(?:\d+\.?\d*|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+|0)$/;
const PART = /(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g;

export interface GoDurationOptions {
  /** A bare number counts as seconds, as kubectl's flags and YAML numbers take it (Go would refuse it). */
  bareNumberSeconds?: boolean;
}

/**
 * Milliseconds in a duration as Go's `time.ParseDuration` reads it: an optional sign, then one or more decimal
 * numbers each with a unit (`ns`, `us`/`µs`, `ms`, `s`, `m`, `h`), such as `300ms`, `-1.5h` or `2h45m`; `0` alone
 * is zero. Undefined for anything else (`""`, `1d`, `10 m`, `1h30`). The one parser of durations: the CLI's flags,
 * the simulator's load models, the fail-back annotation and Crane's DSP durations all read theirs with it.
 */
export function parseGoDuration(text: string, options: GoDurationOptions = {}): number | undefined {
  if (options.bareNumberSeconds && /^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const m = DURATION.exec(text);
  if (!m) return undefined;
  const body = m[2]!;
  if (body === '0') return 0;
  let total = 0;
  for (const part of body.matchAll(PART)) total += Number(part[1]) * UNIT_MS[part[2]!]!;
  return m[1] === '-' ? -total : total;
}
