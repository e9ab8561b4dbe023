export { CronWindowError, InvalidTimeSeriesError, PercentileRangeError } from './errors.js';
export * from './config.js';
export {
  fillGaps,
  MAX_GAP_SECONDS,
  preprocessSeries,
  removeExtremeOutliers,
  truncateToUnit,
  type Sample,
} from './preprocess.js';
export { percentile, percentileIndex, percentileOfSorted } from './percentile.js';
export { fft, ifft, magnitudes, type Spectrum } from './fft.js';
export { autoCorrelation } from './auto-correlation.js';
export { isPeak } from './peak.js';
export { truncateToPeriods } from './truncate.js';
export {
  ACCEPTED_PERIODS,
  DAY_SECONDS,
  DEFAULT_PERIOD_SEED,
  detectPeriod,
  findPeriod,
  WEEK_SECONDS,
  type PeriodDetection,
} from './period.js';
export { estimate, fftEstimate, maxValueEstimate } from './estimators.js';
export { predictionError } from './accuracy.js';
export {
  FORECAST_ERROR_MIN_ACTUAL,
  forecastError,
  type ForecastError,
  type ForecastErrorInput,
} from './forecast-error.js';
export { selectEstimator, type EstimatorScore } from './select-estimator.js';
export { PREDICT_PARTIAL, PredictionReasons, type PredictionReadiness, type PredictionReason } from './readiness.js';
export { DEFAULT_MODEL_UPDATE_INTERVAL_SECONDS, nextRefitAt, refitDue, type FittedModel } from './model-refresh.js';
export {
  DEFAULT_PREDICTION_WINDOW_SECONDS,
  predict,
  type PredictionResult,
  type PredictOptions,
} from './predict.js';
export { gaussian, seededRandom } from './random.js';
export {
  cronZone,
  isCronWindowActive,
  nextFireSeconds,
  parseCronWindow,
  type CronWindow,
  type ParsedCronWindow,
} from './cron-window.js';
export { cronMetric, nextCronBoundary, type ActiveCron, type CronMetric } from './cron-metric.js';
