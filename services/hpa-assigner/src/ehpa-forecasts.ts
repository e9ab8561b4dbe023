import { resolveDspConfig, type EffectiveHorizontalPodAutoscaler } from '@flotilla/api';
import type { Forecast } from '@flotilla/ehpa';
import type { MetricHistorySource, WorkloadRef } from '@flotilla/metric-history';
import {
  DEFAULT_PREDICTION_WINDOW_SECONDS,
  forecastError,
  predict,
  refitDue,
  type FittedModel,
  type ForecastError,
} from '@flotilla/prediction';

/** A forecast's values at evenly spaced instants, as 32-bit floats. */
interface Segment {
  firstSeconds: number;
  stepSeconds: number;
  values: Float32Array;
}

/** A forecast kept compactly: evenly spaced values as 32-bit floats (Crane's adapter parses them as float32 anyway). */
interface Entry extends Segment {
  /** What the forecast was fitted for; a changed spec or target refits at once. */
  fingerprint: string;
  model: FittedModel;
  readiness: Forecast['readiness'];
  /**
   * What was forecast for the error window before this fit: the previous fit's values, or, without one (a new
   * leader, a changed spec), the forecast replayed from the history as it stood one window before the fit.
   */
  past: Segment | undefined;
  /** The last forecast error computed, and the sample slot it was computed in (once per sample interval). */
  error?: { slot: number; value: ForecastError | undefined };
}

/** The samples of a compact forecast in [from, to] (Unix seconds, both ends included). */
function samplesBetween(e: Segment, from: number, to: number): Array<readonly [number, number]> {
  const out: Array<readonly [number, number]> = [];
  const first = Math.max(0, Math.ceil((from - e.firstSeconds) / e.stepSeconds));
  for (let i = first; i < e.values.length; i++) {
    const t = e.firstSeconds + i * e.stepSeconds;
    if (t > to) break;
    out.push([t, e.values[i]!]);
  }
  return out;
}

/** A segment from a fit's samples; evenly spaced at `step` from the first. */
function segmentOf(samples: ReadonlyArray<readonly [number, number]>, step: number, otherwise: number): Segment {
  return {
    firstSeconds: samples[0]?.[0] ?? otherwise,
    stepSeconds: step,
    values: Float32Array.from(samples, ([, v]) => v),
  };
}

/** The past forecast a new fit keeps: what the previous fit (and what it kept) forecast for [from, to]. */
function keptPast(previous: Entry, from: number, to: number): Segment | undefined {
  const samples = [
    ...(previous.past ? samplesBetween(previous.past, from, to) : []),
    ...samplesBetween(previous, from, to),
  ];
  const byTime = new Map(samples);
  const kept = [...byTime].sort(([a], [b]) => a - b);
  return kept.length ? segmentOf(kept, previous.stepSeconds, from) : undefined;
}

/**
 * Each EffectiveHPA's fitted forecast, refitted as Crane's predictor does: when first needed, every model update
 * interval (12 h), or when the stored forecast no longer reaches the end of the prediction window. The history comes
 * from the configured source (the metrics stream or Prometheus) over `historyLength` + 1 h, at `sampleInterval`.
 * Kept in memory: a new leader refits from the durable history.
 *
 * The forecast error (`errorFor`) compares what was forecast for the last prediction window with what the history
 * then recorded. Nothing is written per sample for it: the forecasts of the window are the fitted ones in memory (a
 * refit keeps the previous fit's values for the window, at most one window of floats), and where none are (the first
 * fit of a leader or of a changed spec) the forecast that would have been made one window earlier is replayed from
 * the history once, as Crane's predictor replays its fits.
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

  /**
   * The error of the forecasts for the last prediction window against the history's samples of it (undefined when
   * no instant has both), computed at most once per sample interval; `windowFor` must have been called first.
   */
  async errorFor(key: string, ehpa: EffectiveHorizontalPodAutoscaler, now: Date): Promise<ForecastError | undefined> {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const window = ehpa.spec!.prediction?.predictionWindowSeconds ?? DEFAULT_PREDICTION_WINDOW_SECONDS;
    const nowS = Math.floor(now.getTime() / 1000);
    const slot = Math.floor(nowS / entry.stepSeconds);
    if (entry.error?.slot === slot) return entry.error.value;
    const from = nowS - window;
    const forecast = [
      ...(entry.past ? samplesBetween(entry.past, from, nowS) : []),
      ...samplesBetween(entry, from, nowS),
    ];
    const actual = forecast.length
      ? await this.source.range(workloadOf(ehpa), {
          start: new Date(from * 1000),
          end: new Date(nowS * 1000),
          stepSeconds: entry.stepSeconds,
        })
      : [];
    const value = forecastError({ forecast, actual, now: nowS, windowSeconds: window });
    entry.error = { slot, value };
    return value;
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
    const previous = this.entries.get(key);
    const keep = previous?.fingerprint === fingerprint ? keptPast(previous, nowS - window, nowS) : undefined;
    // Without a past forecast to keep, one more window of history lets the replay fit see what this fit sees.
    const replay = keep === undefined;
    const samples = (
      await this.source.range(workloadOf(ehpa), {
        start: new Date((nowS - config.historyLengthSeconds - 3600 - (replay ? window : 0)) * 1000),
        end: new Date(nowS * 1000),
        stepSeconds: config.sampleIntervalSeconds,
      })
    ).map(([timestamp, value]) => ({ timestamp, value }));
    const fit = predict(
      samples,
      config,
      // the forecast must outlast the model update interval by the window, or it would be refitted early
      { now: nowS, predictionWindowSeconds: window, horizonSeconds: 86_400 + window },
    );
    let past = keep;
    if (replay && fit.readiness.ready) {
      const then = nowS - window;
      const earlier = predict(samples, config, { now: then, predictionWindowSeconds: window, horizonSeconds: window });
      if (earlier.readiness.ready) past = segmentOf(earlier.samples, config.sampleIntervalSeconds, then);
    }
    const last = fit.samples[fit.samples.length - 1];
    const entry: Entry = {
      fingerprint,
      model: { fittedAt: nowS, forecastEnd: last?.[0] },
      readiness: fit.readiness,
      ...segmentOf(fit.samples, config.sampleIntervalSeconds, nowS),
      past,
    };
    this.entries.set(key, entry);
    return entry;
  }

  forget(key: string): void {
    this.entries.delete(key);
  }
}

/** The workload whose usage history an EffectiveHPA's forecast reads. */
function workloadOf(ehpa: EffectiveHorizontalPodAutoscaler): WorkloadRef {
  return {
    namespace: ehpa.metadata.namespace ?? 'default',
    kind: ehpa.spec!.scaleTargetRef.kind,
    name: ehpa.spec!.scaleTargetRef.name,
  };
}
