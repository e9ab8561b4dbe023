/** Tick intervals a time axis picks from, in milliseconds. */
const STEPS = [
  1_000,
  5_000,
  15_000,
  30_000,
  60_000,
  5 * 60_000,
  15 * 60_000,
  30 * 60_000,
  3_600_000,
  3 * 3_600_000,
  6 * 3_600_000,
  12 * 3_600_000,
  86_400_000,
  7 * 86_400_000,
  30 * 86_400_000,
];

/** About `count` round instants between `from` and `to` (epoch ms), at the smallest listed step that gives no more. */
export function timeTicks(from: number, to: number, count = 5): number[] {
  if (!(to > from)) return [from];
  const step = STEPS.find((s) => (to - from) / s <= count) ?? STEPS.at(-1)!;
  const out: number[] = [];
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) out.push(t);
  return out;
}

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
