import { UnknownTimeZoneError } from './errors.js';

/** The zone a rule without `timeZone` uses unless the controller is configured otherwise. */
export const DEFAULT_CONTROLLER_TIME_ZONE = 'UTC';

const validity = new Map<string, string | undefined>();

function checkZone(timeZone: string): string | undefined {
  // Intl also accepts offsets such as "+08:00"; Karmada (Go's LoadLocation) does not, and neither do we.
  if (!/^[A-Za-z]/.test(timeZone)) return `unknown time zone "${timeZone}"`;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone }).resolvedOptions().timeZone;
  } catch {
    return `unknown time zone "${timeZone}"`;
  }
  // Intl matches names case-insensitively; IANA names are case-sensitive (Karmada rejects "asia/shanghai").
  if (resolved !== timeZone && resolved.toLowerCase() === timeZone.toLowerCase()) {
    return `unknown time zone "${timeZone}" (did you mean "${resolved}"?)`;
  }
  return undefined;
}

/** Returns an error message when `timeZone` is not an IANA zone this runtime knows, otherwise undefined. */
export function timeZoneError(timeZone: string): string | undefined {
  if (timeZone === '') return undefined; // "" means UTC, as in Karmada
  if (!validity.has(timeZone)) validity.set(timeZone, checkZone(timeZone));
  return validity.get(timeZone);
}

/**
 * The zone a rule runs in: unset means the controller's zone (`defaultTimeZone`), `""` means UTC as in Karmada.
 * Throws {@link UnknownTimeZoneError} for a name this runtime does not know, including a bad default.
 */
export function resolveTimeZone(
  timeZone: string | undefined,
  defaultTimeZone: string = DEFAULT_CONTROLLER_TIME_ZONE,
): string {
  const zone = timeZone === undefined ? defaultTimeZone : timeZone === '' ? 'UTC' : timeZone;
  if (zone !== 'UTC' && timeZoneError(zone) !== undefined) throw new UnknownTimeZoneError(zone);
  return zone;
}
