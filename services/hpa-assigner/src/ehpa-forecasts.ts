import { resolveDspConfig, type EffectiveHorizontalPodAutoscaler } from '@flotilla/api';
import type { Forecast } from '@flotilla/ehpa';
import type { MetricHistorySource } from '@flotilla/metric-history';
import { DEFAULT_PREDICTION_WINDOW_SECONDS, predict, refitDue, type FittedModel } from '@flotilla/prediction';

/** A forecast kept compactly: evenly spaced values as 32-bit floats (Crane's adapter parses them as float32 anyway). */
interface Entry {
  /** What the forecast was fitted for; a changed spec or target refits at once. */
  fingerprint: string;
  model: FittedModel;
  readiness: Forecast['readiness'];
  firstSeconds: number;
  stepSeconds: number;
  values: Float32Array;
}

/** The samples of a compact forecast in [from, to] (Unix seconds, both ends included). */
function samplesBetween(e: Entry, from: number, to: number): Array<readonly [number, number]> {
  const out: Array<readonly [number, number]> = [];
  const first = Math.max(0, Math.ceil((from - e.firstSeconds) / e.stepSeconds));
  for (let i = first; i < e.values.length; i++) {
    const t = e.firstSeconds + i * e.stepSeconds;
    if (t > to) break;
    out.push([t, e.values[i]!]);
  }
  return out;
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

  /** The forecast's samples over the prediction window [now, now + predictionWindowSeconds], refitting when due. */
  async windowFor(key: string, ehpa: EffectiveHorizontalPodAutoscaler, now: Date): Promise<Forecast> {
    const spec = ehpa.spec!;
    const window = spec.prediction?.predictionWindowSeconds ?? DEFAULT_PREDICTION_WINDOW_SECONDS;
    const nowS = Math.floor(now.getTime() / 1000);
    const fingerprint = JSON.stringify([spec.scaleTargetRef, ehpa.metadata.namespace, spec.prediction]);
    const cached = this.entries.get(key);
    const fresh = cached && cached.fingerprint === fingerprint && !refitDue(cached.model, nowS, window);
    const entry = fresh && cached ? cached : await this.refit(key, ehpa, fingerprint, nowS, window);
    return { readiness: entry.readiness, samples: samplesBetween(entry, nowS, nowS + window) };
  }

  private async refit(
    key: string,
    ehpa: EffectiveHorizontalPodAutoscaler,
    fingerprint: string,
    nowS: number,
    window: number,
  ): Promise<Entry> {
    const spec = ehpa.spec!;
    const config = resolveDspConfig(spec.prediction?.predictionAlgorithm?.dsp).config;
    const samples = await this.source.range(
      {
        namespace: ehpa.metadata.namespace ?? 'default',
        kind: spec.scaleTargetRef.kind,
        name: spec.scaleTargetRef.name,
      },
      {
        start: new Date((nowS - config.historyLengthSeconds - 3600) * 1000),
        end: new Date(nowS * 1000),
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
    const entry: Entry = {
      fingerprint,
      model: { fittedAt: nowS, forecastEnd: last?.[0] },
      readiness: fit.readiness,
      firstSeconds: fit.samples[0]?.[0] ?? nowS,
      stepSeconds: config.sampleIntervalSeconds,
      values: Float32Array.from(fit.samples, ([, v]) => v),
    };
    this.entries.set(key, entry);
    return entry;
  }

  forget(key: string): void {
    this.entries.delete(key);
  }
}
