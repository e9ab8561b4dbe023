/**
 * A schedule that Flotilla cannot fire. The message is the part admission puts after the field path:
 * `invalid cron expression "61 * * * *": minute out of range`.
 */
export class CronSyntaxError extends Error {
  constructor(
    readonly expression: string,
    readonly reason: string,
  ) {
    super(`invalid cron expression "${expression}": ${reason}`);
    this.name = 'CronSyntaxError';
  }
}

/** A `timeZone` that is not an IANA zone name this runtime knows. */
export class UnknownTimeZoneError extends Error {
  constructor(readonly timeZone: string) {
    super(`unknown time zone "${timeZone}"`);
    this.name = 'UnknownTimeZoneError';
  }
}

/**
 * No fire time was found within the search horizon. Parsing rejects schedules that can never fire, so this
 * only surfaces for a wildcard-hour rule whose every match falls in DST gaps, which no real zone produces.
 */
export class NoFireTimeError extends Error {
  constructor(
    readonly expression: string,
    readonly timeZone: string,
    readonly after: Date,
  ) {
    super(`cron expression "${expression}" has no fire time in ${timeZone} after ${after.toISOString()}`);
    this.name = 'NoFireTimeError';
  }
}

/**
 * An `excludeDates` entry that names no days. The message is the part admission puts after the field path:
 * `invalid excludeDates entry "2026-02-30": 2026-02-30 is not a calendar date`.
 */
export class ExcludeDateSyntaxError extends Error {
  constructor(
    readonly entry: string,
    readonly reason: string,
  ) {
    super(`invalid excludeDates entry "${entry}": ${reason}`);
    this.name = 'ExcludeDateSyntaxError';
  }
}
