import { resolveDspConfig, type EffectiveHorizontalPodAutoscaler } from '@flotilla/api';
import type { Forecast } from '@flotilla/ehpa';
import type { MetricHistorySource } from '@flotilla/metric-history';
import { DEFAULT_PREDICTION_WINDOW_SECONDS, predict, refitDue, type FittedModel } from '@flotilla/prediction';

interface Entry {
  /** What the forecast was fitted for; a changed spec or target refits at once. */
  fingerprint: string;
  model: FittedModel;
  forecast: Forecast;
}

/**
 * Each EffectiveHPA's fitted forecast, refitted as Crane's predictor does: when first needed, every model update
 * interval (12 h), or when the stored forecast no longer reaches the end of the prediction window. The history comes
 * from the configured source (the metrics stream or Prometheus) over `historyLength` + 1 h, at `sampleInterval`.
 * Kept in memory: a new leader refits from the durable history.
 */
export class EhpaForecasts {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly source: MetricHistorySource) {}

  async forecastFor(key: string, ehpa: EffectiveHorizontalPodAutoscaler, now: Date): Promise<Forecast> {
    const spec = ehpa.spec!;
    const window = spec.prediction?.predictionWindowSeconds ?? DEFAULT_PREDICTION_WINDOW_SECONDS;
    const nowS = Math.floor(now.getTime() / 1000);
    const fingerprint = JSON.stringify([spec.scaleTargetRef, ehpa.metadata.namespace, spec.prediction]);
    const cached = this.entries.get(key);
    if (cached && cached.fingerprint === fingerprint && !refitDue(cached.model, nowS, window)) return cached.forecast;
    const config = resolveDspConfig(spec.prediction?.predictionAlgorithm?.dsp).config;
    const samples = await this.source.range(
      { namespace: ehpa.metadata.namespace ?? 'default', kind: spec.scaleTargetRef.kind, name: spec.scaleTargetRef.name },
      {
        start: new Date((nowS - config.historyLengthSeconds - 3600) * 1000),
        end: now,
        stepSeconds: config.sampleIntervalSeconds,
      },
    );
    const fit = predict(
      samples.map(([timestamp, value]) => ({ timestamp, value })),
      config,
      // the forecast must outlast the model update interval by the window, or it would be refitted early
      { now: nowS, predictionWindowSeconds: window, horizonSeconds: 86_400 + window },
    );
    const last = fit.samples[fit.samples.length - 1];
    const entry = { fingerprint, model: { fittedAt: nowS, forecastEnd: last?.[0] }, forecast: fit };
    this.entries.set(key, entry);
    return fit;
  }

  forget(key: string): void {
    this.entries.delete(key);
  }
}
