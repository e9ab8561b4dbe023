import { CliError } from './context.js';

/** Go-style durations as kubectl takes them: 30s, 1m30s, 2h, 500ms; a bare number is seconds. */
export function parseDuration(text: string, flag: string): number {
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  let rest = text;
  while (rest.length) {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)/.exec(rest);
    if (!m) throw new CliError(`error: invalid value "${text}" for ${flag}: use a duration such as 30s, 5m or 1h30m`);
    total += Number(m[1]) * unit[m[2]!]!;
    rest = rest.slice(m[0].length);
  }
  if (!text.length) throw new CliError(`error: ${flag} needs a duration`);
  return total;
}
