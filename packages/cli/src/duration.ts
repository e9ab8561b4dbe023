import { parseGoDuration } from '@flotilla/api';
import { CliError } from './context.js';

/** Go durations as kubectl takes them: 30s, 1m30s, 2h, 500ms; a bare number is seconds. Milliseconds. */
export function parseDuration(text: string, flag: string): number {
  if (!text.length) throw new CliError(`error: ${flag} needs a duration`);
  const ms = parseGoDuration(text, { bareNumberSeconds: true });
  if (ms === undefined || ms < 0)
    throw new CliError(`error: invalid value "${text}" for ${flag}: use a duration such as 30s, 5m or 1h30m`);
  return ms;
}
