import { estimatorName, type DspConfig } from './config.js';
import { InvalidTimeSeriesError } from './errors.js';
import { estimate } from './estimators.js';
import { DAY_SECONDS, detectPeriod, WEEK_SECONDS } from './period.js';
import { preprocessSeries, type Sample } from './preprocess.js';
import { PredictionReasons, type PredictionReadiness } from './readiness.js';
import { selectEstimator } from './select-estimator.js';
import { truncateToPeriods } from './truncate.js';

export const DEFAULT_PREDICTION_WINDOW_SECONDS = 3600;

export interface PredictOptions {
  /**
   * Unix seconds of the fit. Crane queries `[end − historyLength − 1h, end]` with `end` = now truncated to the
   * sample interval; samples outside are ignored. Unset: the window ends at the last sample.
   */
  readonly now?: number;
  /** Seed of period detection's shuffles (Crane uses the clock); unset: a fixed seed, so fits are reproducible. */
  readonly seed?: number;
  /** How far the forecast reaches; unset: one period, and at least `predictionWindowSeconds`. */
  readonly horizonSeconds?: number;
  /** The EHPA's `predictionWindowSeconds` (default 3600): the shortest default horizon. */
  readonly predictionWindowSeconds?: number;
}

export interface PredictionResult {
  readonly periodic: boolean;
  /** The period the forecast repeats (86400 or 604800), null when not periodic. */
  readonly periodSeconds: number | null;
  /** What period detection returned, -1 for nothing (e.g. 43200 for a 12-hour pattern, which Crane ignores). */
  readonly detectedPeriodSeconds: number;
  /** The chosen estimator, named as Crane prints it; null without a forecast. */
  readonly estimator: string | null;
  /** Every estimator's error on the last period, in configuration order. */
  readonly estimatorErrors: ReadonlyArray<{ readonly estimator: string; readonly error: number }>;
  /** `[unixSeconds, value]` from one interval after the last history sample, one per interval. */
  readonly samples: ReadonlyArray<readonly [number, number]>;
  readonly readiness: PredictionReadiness;
}

function formatSpan(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return m === 0 ? `${h}h` : `${h}h${m}m`;
}

function notReady(reason: PredictionReadiness['reason'], message: string, detected = -1): PredictionResult {
  return {
    periodic: false,
    periodSeconds: null,
    detectedPeriodSeconds: detected,
    estimator: null,
    estimatorErrors: [],
    samples: [],
    readiness: { ready: false, reason, message },
  };
}

/**
 * Crane's DSP prediction of one series, as one pure fit: pre-processing (gaps, linear fill, whole hours,
 * outliers), period detection (a day or a week only), the estimator with the smallest error on the last period,
 * re-run on all whole periods, and the one-period estimate repeated over the horizon. `history` must be in time
 * order, timestamps in Unix seconds. When no forecast can be made, `readiness` says why.
 */
export function predict(history: readonly Sample[], config: DspConfig, opts: PredictOptions = {}): PredictionResult {
  const interval = config.sampleIntervalSeconds;
  const last = history[history.length - 1];
  const end = opts.now !== undefined ? Math.floor(opts.now / interval) * interval : last?.timestamp;
  if (end === undefined) return notReady(PredictionReasons.NoHistory, 'no history samples');
  const start = end - config.historyLengthSeconds - 3600;
  const window = history.filter((s) => s.timestamp >= start && s.timestamp <= end);
  if (window.length === 0) {
    return notReady(PredictionReasons.NoHistory, `no history samples between ${start} and ${end} (Unix seconds)`);
  }

  let series: Sample[];
  try {
    series = preprocessSeries(window, interval);
  } catch (err) {
    if (err instanceof InvalidTimeSeriesError) return notReady(PredictionReasons.InvalidHistory, err.message);
    throw err;
  }
  const values = Float64Array.from(series, (s) => s.value);
  const rate = 1 / interval;
  const usable = values.length * interval;
  const gapNote =
    series.length > 0 && series[0]!.timestamp > window[0]!.timestamp
      ? `; samples before ${series[0]!.timestamp} were dropped by a gap longer than 1h or to whole hours`
      : '';

  const detection = detectPeriod(values, rate, opts.seed);
  if (detection.window === 'none') {
    return notReady(
      PredictionReasons.NotEnoughHistory,
      `${formatSpan(usable)} of contiguous history, a daily pattern needs at least 48h (2 whole days) and a weekly ` +
        `one 336h (2 whole weeks)${gapNote}`,
    );
  }
  if (detection.periodSeconds === undefined) {
    const found =
      detection.detectedSeconds > 0 ? `the strongest period is ${detection.detectedSeconds}s` : 'no period was found';
    const weeklyHint = detection.window === 'days' ? '; a weekly pattern needs at least 2 whole weeks of history' : '';
    return notReady(
      PredictionReasons.NotPeriodic,
      `not periodic: in the last ${formatSpan(usable)} of history ${found}, and only a period of exactly one day ` +
        `(${DAY_SECONDS}s) or one week (${WEEK_SECONDS}s) is predicted${weeklyHint}`,
      detection.detectedSeconds,
    );
  }

  const period = detection.periodSeconds;
  const whole = truncateToPeriods(values, rate, period);
  if (!whole.samples || whole.multiple < 2) {
    return notReady(
      PredictionReasons.NotEnoughHistory,
      `${formatSpan(usable)} of contiguous history holds ${whole.multiple} whole period(s) of ${period}s, 2 are needed`,
      detection.detectedSeconds,
    );
  }
  const { best, scores } = selectEstimator(config.estimators, whole.samples, whole.multiple, rate);
  const estimatorErrors = scores.map((s) => ({ estimator: estimatorName(s.estimator), error: s.error }));
  if (!best) {
    return {
      ...notReady(PredictionReasons.NoEstimator, 'no estimator gave a usable error on the last period', period),
      estimatorErrors,
    };
  }

  const periodSamples = Math.trunc(period * rate);
  const estimateOfPeriod = estimate(best, whole.samples, rate, periodSamples);
  const horizon =
    opts.horizonSeconds ?? Math.max(period, opts.predictionWindowSeconds ?? DEFAULT_PREDICTION_WINDOW_SECONDS);
  const count = Math.ceil(horizon / interval);
  const lastTimestamp = series[series.length - 1]!.timestamp;
  const samples: Array<readonly [number, number]> = [];
  for (let i = 0; i < count; i++)
    samples.push([lastTimestamp + interval * (i + 1), estimateOfPeriod[i % periodSamples]!]);
  return {
    periodic: true,
    periodSeconds: period,
    detectedPeriodSeconds: detection.detectedSeconds,
    estimator: estimatorName(best),
    estimatorErrors,
    samples,
    readiness: {
      ready: true,
      reason: PredictionReasons.Succeeded,
      message: `periodic every ${period}s over ${whole.multiple} whole periods; ${estimatorName(best)}`,
    },
  };
}
