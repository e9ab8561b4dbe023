/** Returns an error message when `timeZone` is not an IANA zone this runtime knows, otherwise undefined. */
export function timeZoneError(timeZone: string): string | undefined {
  if (timeZone === '') return undefined; // "" means UTC, as in Karmada
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return undefined;
  } catch {
    return `unknown time zone "${timeZone}"`;
  }
}
