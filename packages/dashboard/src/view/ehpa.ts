import type { Series } from './trail.js';

/** The EffectiveHPA sources, in Crane's order. */
export const EHPA_SOURCE_ORDER = ['observed', 'prediction', 'cron'] as const;

export interface EhpaProposalRow {
  source: string;
  /** The replicas it proposes, or undefined with the reason it has none. */
  replicas?: number;
  metricValue?: number;
  detail: string;
  winning: boolean;
}

export interface EhpaView {
  /** The source whose proposal won (`observed`, `prediction`, `cron`), or undefined before the first decision. */
  winning?: string;
  expectReplicas?: number;
  proposals: EhpaProposalRow[];
  /** Actual load (the observed source's metric), forecast (the prediction's), and the replicas asked for. */
  series: Series[];
  /** The usage history and the forecast of it (cores), when the gateway sent them: what the forecast error compares. */
  usage: Series[];
  /** How far the forecasts for the last prediction window were from what came, in words; undefined without prediction. */
  forecastError?: string;
}

/** The gateway's forecast view: the usage history and the forecast replayed over it, `[unix seconds, cores]`. */
export interface ForecastCurvesView {
  actual: ReadonlyArray<readonly [number, number]>;
  forecast: ReadonlyArray<readonly [number, number]>;
}

type Json = Record<string, unknown>;
const rec = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** The names of the chart's series, so that a reader (or a test) can find them. */
export const EHPA_SERIES = {
  actual: 'actual load (observed metric)',
  forecast: 'forecast (predicted metric)',
  replicas: 'replicas',
} as const;

/** The names of the usage chart's series. */
export const EHPA_USAGE_SERIES = {
  actual: 'actual usage (cores)',
  forecast: 'forecast usage (cores)',
} as const;

function forecastErrorText(status: Json, spec: Json): string | undefined {
  if (rec(spec).prediction === undefined) return undefined;
  const e = rec(status.forecastError);
  const mape = num(e.mape);
  if (mape === undefined) return 'Forecast error: no past forecast to compare yet';
  return `Forecast error: ${(mape * 100).toFixed(1)} % MAPE over the last ${num(e.windowSeconds) ?? '?'}s (${num(e.samples) ?? '?'} samples)`;
}

/**
 * An EffectiveHPA's page: its proposals now (status), the winner, the forecast error, the usage history beside the
 * forecast of it (`curves`, from the gateway's forecast view), and from its decisions' events (each carries the
 * status patch it made: proposals with their metric values, the winning source, the expected replicas) the actual
 * load, the forecast and the replicas over time. A count holds until the next decision, so each series is extended
 * to `now`.
 */
export function ehpaView(
  object: unknown,
  events: ReadonlyArray<{ time: string; data?: unknown }>,
  now: number,
  curves?: ForecastCurvesView,
): EhpaView {
  const status = rec(rec(object).status);
  const proposals = rec(status.proposals);
  const winning = typeof status.winningSource === 'string' ? status.winningSource : undefined;
  const actual: Series = { name: EHPA_SERIES.actual, points: [] };
  const forecast: Series = { name: EHPA_SERIES.forecast, points: [] };
  const replicas: Series = { name: EHPA_SERIES.replicas, points: [] };
  for (const e of events) {
    const d = rec(e.data);
    const patch = rec(d.statusPatch);
    const t = Date.parse(e.time);
    const p = rec(patch.proposals);
    const observed = num(rec(p.observed).metricValue);
    const predicted = num(rec(p.prediction).metricValue);
    const count = num(patch.expectReplicas) ?? num(d.toReplicas);
    if (observed !== undefined) actual.points.push({ t, v: observed });
    if (predicted !== undefined) forecast.points.push({ t, v: predicted });
    if (count !== undefined) replicas.points.push({ t, v: count });
  }
  const series = [actual, forecast, replicas].filter((s) => s.points.length > 0);
  for (const s of series) {
    const last = s.points.at(-1)!;
    if (last.t < now) s.points.push({ t: now, v: last.v });
  }
  const toSeries = (name: string, samples: ForecastCurvesView['actual']): Series => ({
    name,
    points: samples.map(([t, v]) => ({ t: t * 1000, v })),
  });
  const usage = curves
    ? [toSeries(EHPA_USAGE_SERIES.actual, curves.actual), toSeries(EHPA_USAGE_SERIES.forecast, curves.forecast)].filter(
        (s) => s.points.length > 0,
      )
    : [];
  const forecastError = forecastErrorText(status, rec(rec(object).spec));
  return {
    ...(winning ? { winning } : {}),
    ...(forecastError ? { forecastError } : {}),
    usage,
    ...(num(status.expectReplicas) === undefined ? {} : { expectReplicas: num(status.expectReplicas) }),
    proposals: EHPA_SOURCE_ORDER.filter((source) => proposals[source] !== undefined).map((source) => {
      const x = rec(proposals[source]);
      const r = num(x.replicas);
      return {
        source,
        ...(r === undefined ? {} : { replicas: r }),
        ...(num(x.metricValue) === undefined ? {} : { metricValue: num(x.metricValue) }),
        detail:
          r === undefined ? `${String(x.reason ?? 'Unknown')}: ${String(x.message ?? '')}` : String(x.detail ?? ''),
        winning: source === winning,
      };
    }),
    series,
  };
}
