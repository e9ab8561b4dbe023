const UNIT_SECONDS: Readonly<Record<string, number>> = {
  ns: 1e-9,
  us: 1e-6,
  µs: 1e-6,
  μs: 1e-6,
  ms: 1e-3,
  s: 1,
  m: 60,
  h: 3600,
};

/**
 * Seconds in a duration written as Crane's `utils.ParseDuration` reads it: `<N>d` for whole days, otherwise Go's
 * `time.ParseDuration` syntax (`90s`, `1h30m`, `1.5h`). Returns undefined for anything else, including "".
 */
export function parseCraneDuration(text: string): number | undefined {
  const days = /^(\d+)d$/.exec(text);
  if (days) return Number(days[1]) * 86_400;
  const m = /^([+-]?)((?:(?:\d+\.?\d*|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+|0)$/.exec(text);
  if (!m) return undefined;
  const body = m[2]!;
  if (body === '0') return 0;
  let total = 0;
  for (const part of body.matchAll(/(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g))
    total += Number(part[1]) * UNIT_SECONDS[part[2]!]!;
  return m[1] === '-' ? -total : total;
}
