/**
 * An instant as a wall-clock time in an IANA time zone (`2024-03-10 09:00 CET`): the cron page shows each rule's runs
 * in the rule's own zone, as CronFederatedHPA's `timeZone` means them.
 */
export function formatInZone(t: number, timeZone: string, withDate = true): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hour12: false,
      timeZoneName: 'short',
    })
      .formatToParts(new Date(t))
      .map((p) => [p.type, p.value]),
  ) as Record<string, string>;
  const time = `${parts.hour === '24' ? '00' : parts.hour}:${parts.minute} ${parts.timeZoneName}`;
  return withDate ? `${parts.year}-${parts.month}-${parts.day} ${time}` : time;
}

/** The calendar date (`2024-03-10`) an instant falls on in a time zone: what a cron rule's excluded dates name. */
export function dateInZone(t: number, timeZone: string): string {
  return formatInZone(t, timeZone).slice(0, 10);
}
