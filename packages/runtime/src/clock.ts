/** A source of the current time, passed in wherever logic depends on "now" so tests can control it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = {
  now: () => new Date(),
};

/** A clock that only moves when told to; for tests. */
export class ManualClock implements Clock {
  private ms: number;

  constructor(start: Date | number = 0) {
    this.ms = typeof start === 'number' ? start : start.getTime();
  }

  now(): Date {
    return new Date(this.ms);
  }

  /** Moves the clock forward by `ms` (negative values are refused: time does not run backwards here). */
  advance(ms: number): Date {
    if (!Number.isFinite(ms) || ms < 0)
      throw new RangeError(`ManualClock.advance: ms must be a finite number >= 0, got ${ms}`);
    this.ms += ms;
    return this.now();
  }

  set(at: Date | number): void {
    this.ms = typeof at === 'number' ? at : at.getTime();
  }
}
