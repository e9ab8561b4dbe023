import type { EffectiveHorizontalPodAutoscaler } from '@flotilla/api';
import { forecastError } from '@flotilla/prediction';
import { describe, expect, it } from 'vitest';
import { forecastCurves } from './forecast-curves.js';
import { reactiveCounterpart } from './replay.js';
import { defaultReportEhpa } from './report-ehpa.js';
import { syntheticDailyTrace } from './synthetic-trace.js';

// 4 days of the synthetic working day, one sample a minute; "now" is 10:07 on the last day
const start = Date.parse('2026-03-02T00:00:00Z') / 1000;
const now = start + 3 * 86_400 + 10 * 3600 + 7 * 60;
const trace = syntheticDailyTrace(start, 4).filter(([t]) => t <= now);
const ehpa: EffectiveHorizontalPodAutoscaler = defaultReportEhpa(); // 3d of history, a 1800 s window

describe('forecastCurves: the actual usage and the forecast replayed as the controller fits it', () => {
  const curves = forecastCurves({ ehpa, history: trace, nowSeconds: now });

  it('spans the last day, the forecast reaching the prediction window ahead, one sample a minute', () => {
    expect(curves.actual[0]![0]).toBe(now - 86_400);
    expect(curves.actual.at(-1)![0]).toBe(now);
    expect(curves.forecast[0]![0]).toBe(now - 86_400);
    expect(curves.forecast.at(-1)![0]).toBe(now + 1800);
    const steps = new Set(curves.forecast.slice(1).map(([t], i) => t - curves.forecast[i]![0]));
    expect([...steps]).toEqual([60]);
  });

  it('forecasts the periodic day closely: a few percent off what then came', () => {
    const e = forecastError({ forecast: curves.forecast, actual: curves.actual, now, windowSeconds: 86_400 });
    expect(e!.samples).toBe(1440);
    expect(e!.mape).toBeLessThan(0.1);
  });

  it('never sees what it forecasts: a spike in the last hour changes no forecast made before it', () => {
    const spiked = trace.map(([t, v]): [number, number] => [t, t > now - 3600 ? v * 5 : v]);
    const other = forecastCurves({ ehpa, history: spiked, nowSeconds: now });
    // the last fit was at 00:00 of the last day (fits fall on whole 12 h): all of its forecast is the same
    expect(other.forecast).toEqual(curves.forecast);
    expect(other.actual.at(-1)![1]).toBeCloseTo(curves.actual.at(-1)![1] * 5, 6);
  });

  it('has no curves without prediction', () => {
    expect(forecastCurves({ ehpa: reactiveCounterpart(ehpa), history: trace, nowSeconds: now })).toEqual({
      actual: [],
      forecast: [],
    });
  });
});
