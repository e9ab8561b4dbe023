/**
 * Why a prediction is or is not ready. Crane reports every failure as `PredictPartial` and leaves the user to
 * guess; Flotilla's `PredictionReady` condition carries one of these reasons and a message that says what is
 * missing.
 */
export const PredictionReasons = {
  /** A forecast was produced (Crane's `PredictSucceed`). */
  Succeeded: 'PredictSucceed',
  /** No sample in the history window. */
  NoHistory: 'NoHistory',
  /** A step between samples is not a positive multiple of the sample interval (Crane: "invalid time series"). */
  InvalidHistory: 'InvalidTimeSeries',
  /** Less than two whole days (daily) or weeks (weekly) of contiguous history after pre-processing. */
  NotEnoughHistory: 'NotEnoughHistory',
  /** Enough history, but no daily or weekly period was found. */
  NotPeriodic: 'NotPeriodic',
  /** No estimator produced a usable error on the last period. */
  NoEstimator: 'NoEstimator',
} as const;

export type PredictionReason = (typeof PredictionReasons)[keyof typeof PredictionReasons];

export interface PredictionReadiness {
  readonly ready: boolean;
  readonly reason: PredictionReason;
  readonly message: string;
}

/** Crane's condition reason for a prediction that is not ready, whatever the detailed reason. */
export const PREDICT_PARTIAL = 'PredictPartial';
