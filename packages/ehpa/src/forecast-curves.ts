import { resolveDspConfig, type EffectiveHorizontalPodAutoscaler } from '@flotilla/api';
import {
  DEFAULT_MODEL_UPDATE_INTERVAL_SECONDS,
  DEFAULT_PREDICTION_WINDOW_SECONDS,
  predict,
} from '@flotilla/prediction';
import { predictionEnabled } from './prediction-proposal.js';
import type { HistorySample } from './what-if-ehpa.js';

/** How far back the curves reach by default: the dashboard's day. */
export const FORECAST_CURVES_SPAN_SECONDS = 86_400;

export interface ForecastCurvesInput {
  ehpa: EffectiveHorizontalPodAutoscaler;
  /** The workload's usage history, oldest first, from `spanSeconds` + historyLength + 1 h before `nowSeconds`. */
  history: readonly HistorySample[];
  nowSeconds: number;
  /** How far back the curves reach; FORECAST_CURVES_SPAN_SECONDS when not given. */
  spanSeconds?: number;
}

export interface ForecastCurves {
  /** The history's samples over [now − span, now]. */
  actual: HistorySample[];
  /** What was forecast for each instant of [now − span, now + predictionWindowSeconds]. */
  forecast: HistorySample[];
}

/**
 * The actual usage and the forecast of it over the last `spanSeconds` and the prediction window ahead, for a chart.
 * The forecast is replayed from the history as the controller fits it: refitted every model update interval (12 h),
 * each fit seeing only the history before it, so each instant shows what was forecast for it before it came. The
 * fits fall on whole multiples of the interval (the controller's fall where its leader started), so the curve of a
 * page reloaded a minute later is the same. Empty without prediction.
 */
export function forecastCurves(input: ForecastCurvesInput): ForecastCurves {
  const spec = input.ehpa.spec;
  if (!spec || !predictionEnabled(spec)) return { actual: [], forecast: [] };
  const config = resolveDspConfig(spec.prediction?.predictionAlgorithm?.dsp).config;
  const window = spec.prediction?.predictionWindowSeconds ?? DEFAULT_PREDICTION_WINDOW_SECONDS;
  const now = input.nowSeconds;
  const from = now - (input.spanSeconds ?? FORECAST_CURVES_SPAN_SECONDS);
  const actual = input.history.filter(([t]) => t >= from && t <= now);
  const history = input.history.map(([timestamp, value]) => ({ timestamp, value }));
  const step = DEFAULT_MODEL_UPDATE_INTERVAL_SECONDS;
  const forecast: HistorySample[] = [];
  for (let fit = Math.floor(from / step) * step; fit <= now; fit += step) {
    // The last fit's forecast reaches to the end of the window ahead.
    const until = fit + step > now ? now + window : fit + step;
    const r = predict(history, config, { now: fit, predictionWindowSeconds: window, horizonSeconds: until - fit });
    // A later fit starts where the forecast before it ends.
    for (const s of r.samples)
      if (s[0] >= from && s[0] <= until && s[0] > (forecast.at(-1)?.[0] ?? -Infinity)) forecast.push(s);
  }
  return { actual, forecast };
}
