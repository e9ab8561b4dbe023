/** An observed value below this (cores) has no meaningful percentage error; Crane's accuracy uses the same bound. */
export const FORECAST_ERROR_MIN_ACTUAL = 1e-3;

export interface ForecastErrorInput {
  /** What was forecast: `[unixSeconds, value]`, at the history's sample instants. */
  readonly forecast: ReadonlyArray<readonly [number, number]>;
  /** What was then observed: the history's `[unixSeconds, value]` samples. */
  readonly actual: ReadonlyArray<readonly [number, number]>;
  /** Unix seconds: the end of the window (included). */
  readonly now: number;
  /** The window's length: instants in (now − windowSeconds, now] are compared. */
  readonly windowSeconds: number;
}

export interface ForecastError {
  /** The mean absolute percentage error as a fraction (0.083 is 8.3 %): mean of |forecast − actual| / actual. */
  readonly mape: number;
  /** The instants compared: both a forecast and an observed value of at least FORECAST_ERROR_MIN_ACTUAL. */
  readonly samples: number;
  readonly windowSeconds: number;
}

/**
 * How far past forecasts were from what was then observed: the mean absolute percentage error over the instants of
 * the last `windowSeconds` that have both a forecast and an observation (matched by their timestamp, as both fall on
 * the sample interval). Plain and symmetric, unlike `predictionError` (Crane's estimator selection, which weighs
 * under-prediction more), because it is shown to people. Undefined when no instant can be compared.
 */
export function forecastError(input: ForecastErrorInput): ForecastError | undefined {
  const from = input.now - input.windowSeconds;
  const inWindow = (t: number) => t > from && t <= input.now;
  const forecastAt = new Map<number, number>();
  for (const [t, v] of input.forecast) if (inWindow(t)) forecastAt.set(t, v);
  let sum = 0;
  let samples = 0;
  for (const [t, a] of input.actual) {
    const f = forecastAt.get(t);
    if (f === undefined || !inWindow(t) || a < FORECAST_ERROR_MIN_ACTUAL) continue;
    sum += Math.abs(f - a) / a;
    samples++;
  }
  if (samples === 0) return undefined;
  return { mape: sum / samples, samples, windowSeconds: input.windowSeconds };
}
