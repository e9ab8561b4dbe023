import { describe, expect, it } from 'vitest';
import { EHPA_SERIES, EHPA_USAGE_SERIES, ehpaView } from './ehpa.js';

const at = (m: number) => `2026-01-01T00:${String(m).padStart(2, '0')}:00Z`;
const now = Date.parse(at(30));

describe('ehpaView', () => {
  it('names the winner and lists each proposal, or why a source has none', () => {
    const v = ehpaView(
      {
        status: {
          winningSource: 'prediction',
          expectReplicas: 6,
          proposals: {
            cron: { reason: 'NoActiveCron', message: 'no window now' },
            observed: { replicas: 4, metricValue: 2, detail: '2 cores' },
            prediction: { replicas: 6, metricValue: 3, detail: '500m per pod' },
          },
        },
      },
      [],
      now,
    );
    expect(v.winning).toBe('prediction');
    expect(v.expectReplicas).toBe(6);
    expect(v.proposals).toEqual([
      { source: 'observed', replicas: 4, metricValue: 2, detail: '2 cores', winning: false },
      { source: 'prediction', replicas: 6, metricValue: 3, detail: '500m per pod', winning: true },
      { source: 'cron', detail: 'NoActiveCron: no window now', winning: false },
    ]);
    expect(v.series).toEqual([]);
  });

  it.each([
    {
      name: 'load, forecast and replicas from the decisions, each held until now',
      events: [
        {
          time: at(0),
          data: {
            statusPatch: {
              proposals: { observed: { metricValue: 1 }, prediction: { metricValue: 2 } },
              expectReplicas: 3,
            },
          },
        },
        {
          time: at(10),
          data: {
            source: 'prediction',
            toReplicas: 5,
            statusPatch: { proposals: { observed: { metricValue: 1.5 }, prediction: { reason: 'NotReady' } } },
          },
        },
      ],
      want: {
        [EHPA_SERIES.actual]: [
          [0, 1],
          [10, 1.5],
          [30, 1.5],
        ],
        [EHPA_SERIES.forecast]: [
          [0, 2],
          [30, 2],
        ],
        [EHPA_SERIES.replicas]: [
          [0, 3],
          [10, 5],
          [30, 5],
        ],
      },
    },
    { name: 'no decisions, no series', events: [], want: {} },
  ])('$name', ({ events, want }) => {
    const v = ehpaView({}, events, now);
    expect(
      Object.fromEntries(v.series.map((s) => [s.name, s.points.map((p) => [(p.t - Date.parse(at(0))) / 60_000, p.v])])),
    ).toEqual(want);
  });

  it('the usage history beside its forecast, and the forecast error in words', () => {
    const t0 = Date.parse(at(0)) / 1000;
    const v = ehpaView(
      {
        spec: { prediction: { predictionWindowSeconds: 600 } },
        status: { forecastError: { mape: 0.0834, windowSeconds: 600, samples: 10 } },
      },
      [],
      now,
      {
        actual: [
          [t0, 2],
          [t0 + 60, 2.5],
        ],
        forecast: [
          [t0, 2.2],
          [t0 + 60, 2.4],
          [t0 + 120, 3],
        ],
      },
    );
    expect(v.forecastError).toBe('Forecast error: 8.3 % MAPE over the last 600s (10 samples)');
    expect(v.usage).toEqual([
      {
        name: EHPA_USAGE_SERIES.actual,
        points: [
          { t: t0 * 1000, v: 2 },
          { t: (t0 + 60) * 1000, v: 2.5 },
        ],
      },
      {
        name: EHPA_USAGE_SERIES.forecast,
        points: [
          { t: t0 * 1000, v: 2.2 },
          { t: (t0 + 60) * 1000, v: 2.4 },
          { t: (t0 + 120) * 1000, v: 3 },
        ],
      },
    ]);
  });

  it.each([
    [
      'no past forecast yet',
      { spec: { prediction: {} }, status: { forecastError: null } },
      'Forecast error: no past forecast to compare yet',
    ],
    ['no prediction, no forecast error', { spec: {}, status: {} }, undefined],
  ])('%s', (_name, object, want) => {
    const v = ehpaView(object, [], now, { actual: [], forecast: [] });
    expect(v.forecastError).toBe(want);
    expect(v.usage).toEqual([]);
  });
});
