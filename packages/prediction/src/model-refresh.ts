/** Crane's `--model-update-interval` default: a model (period and estimator) is refitted every 12 hours. */
export const DEFAULT_MODEL_UPDATE_INTERVAL_SECONDS = 12 * 3600;

export interface FittedModel {
  /** Unix seconds of the fit. */
  readonly fittedAt: number;
  /** Unix seconds of the last forecast sample, undefined when the fit produced none. */
  readonly forecastEnd: number | undefined;
}

/**
 * Whether a prediction must be refitted at `now` (Unix seconds): never fitted, the model update interval has passed
 * since the last fit, or a stored forecast no longer reaches `now + predictionWindowSeconds` (the
 * TimeSeriesPrediction controller's test, at minute granularity). A fit that produced no forecast waits for the
 * update interval, as Crane's predictor does, rather than refitting on every reconcile.
 */
export function refitDue(
  model: FittedModel | undefined,
  now: number,
  predictionWindowSeconds: number,
  updateIntervalSeconds: number = DEFAULT_MODEL_UPDATE_INTERVAL_SECONDS,
): boolean {
  if (!model) return true;
  if (now >= model.fittedAt + updateIntervalSeconds) return true;
  if (model.forecastEnd === undefined) return false;
  return Math.floor(model.forecastEnd / 60) < Math.floor((now + predictionWindowSeconds) / 60);
}

/** When the next refit falls due by the update interval alone (Unix seconds), for a timer. */
export function nextRefitAt(
  model: FittedModel,
  updateIntervalSeconds: number = DEFAULT_MODEL_UPDATE_INTERVAL_SECONDS,
): number {
  return model.fittedAt + updateIntervalSeconds;
}
