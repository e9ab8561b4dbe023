/** Raised for malformed input objects; `path` names the offending field, e.g. `objects[2].kind`. */
export class SchedulingInputError extends Error {
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {
    super(`${path}: ${detail}`);
    this.name = 'SchedulingInputError';
  }
}

/** Karmada's scheduling error kinds; they decide the Scheduled condition's reason. */
export type ScheduleErrorKind = 'FitError' | 'Unschedulable' | 'SchedulerError';

/**
 * One failed scheduling attempt (one affinity group). Not thrown across the public API: the
 * scheduler turns it into a failure result, but strategies throw it to unwind.
 */
export class ScheduleAttemptError extends Error {
  constructor(
    readonly kind: ScheduleErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'ScheduleAttemptError';
  }
}
