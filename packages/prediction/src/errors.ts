/**
 * A history Crane's pre-processing rejects ("invalid time series"): a step between two samples that is not a
 * positive multiple of the sample interval. Crane drops such a series from prediction.
 */
export class InvalidTimeSeriesError extends Error {
  constructor(
    /** Index of the later sample of the offending pair. */
    readonly index: number,
    readonly stepSeconds: number,
    readonly intervalSeconds: number,
  ) {
    super(
      `invalid time series: samples ${index - 1} and ${index} are ${stepSeconds}s apart, ` +
        `not a positive multiple of the ${intervalSeconds}s sample interval`,
    );
    this.name = 'InvalidTimeSeriesError';
  }
}

/** montanaflynn/stats' "Input is outside of range": the percentile's index falls before the first sample. */
export class PercentileRangeError extends Error {
  constructor(
    readonly percent: number,
    readonly count: number,
  ) {
    super(`percentile P${percent} is out of range for ${count} values`);
    this.name = 'PercentileRangeError';
  }
}

/** An EHPA cron window that cannot be evaluated; `field` is its path, e.g. `spec.crons[1].start`. */
export class CronWindowError extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
    this.name = 'CronWindowError';
  }
}
