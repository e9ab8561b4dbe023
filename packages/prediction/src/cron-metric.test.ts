import { describe, expect, it } from 'vitest';
import { cronMetric, nextCronBoundary } from './cron-metric.js';
import type { CronWindow } from './cron-window.js';
import { CronWindowError } from './errors.js';

const cron = (name: string, start: string, end: string, targetReplicas: number, timezone?: string): CronWindow => ({
  name,
  start,
  end,
  targetReplicas,
  ...(timezone === undefined ? {} : { timezone }),
});

/** Crane's documented day of seven "Local" windows: 10 at night and between peaks, 80 at the peaks. */
const day = [
  cron('cron1', '0 0 ? * *', '0 6 ? * *', 10, 'Local'),
  cron('cron2', '0 6 ? * *', '0 9 ? * *', 80, 'Local'),
  cron('cron3', '00 9 ? * *', '00 11 ? * *', 10, 'Local'),
  cron('cron4', '00 11 ? * *', '00 14 ? * *', 80, 'Local'),
  cron('cron5', '00 14 ? * *', '00 17 ? * *', 10, 'Local'),
  cron('cron6', '00 17 ? * *', '00 20 ? * *', 80, 'Local'),
  cron('cron7', '00 20 ? * *', '00 00 ? * *', 10, 'Local'),
];

describe('cronMetric (Crane v0.8+: max of minReplicas and every active target)', () => {
  it.each([
    ['00:00', '2026-06-10T00:00:00+08:00', ['cron1'], 10],
    ['07:00', '2026-06-10T07:00:00+08:00', ['cron2'], 80],
    ['10:00', '2026-06-10T10:00:00+08:00', ['cron3'], 10],
    ['13:59:59', '2026-06-10T13:59:59+08:00', ['cron4'], 80],
    ['14:00', '2026-06-10T14:00:00+08:00', ['cron5'], 10],
    ['23:59', '2026-06-10T23:59:00+08:00', ['cron7'], 10],
  ])("the documented day in the controller's zone (Asia/Shanghai) at %s", (_at, iso, names, value) => {
    const got = cronMetric(day, 1, new Date(iso), 'Asia/Shanghai');
    expect(got.activeCrons.map((c) => c.name)).toEqual(names);
    expect(got.metricValue).toBe(value);
  });

  it('is minReplicas when no window is active', () => {
    expect(cronMetric([cron('a', '0 9 * * *', '0 17 * * *', 8)], 3, new Date('2026-06-10T20:00:00Z'))).toEqual({
      activeCrons: [],
      metricValue: 3,
    });
    expect(cronMetric([], 2, new Date('2026-06-10T20:00:00Z'))).toEqual({ activeCrons: [], metricValue: 2 });
  });

  it('takes the largest active target, and never goes below minReplicas', () => {
    const crons = [
      cron('small', '0 8 * * *', '0 18 * * *', 2),
      cron('big', '0 9 * * *', '0 17 * * *', 12),
      cron('mid', '0 7 * * *', '0 19 * * *', 6),
    ];
    const got = cronMetric(crons, 4, new Date('2026-06-10T12:00:00Z'));
    expect(got).toEqual({
      activeCrons: [
        { name: 'small', targetReplicas: 2 },
        { name: 'big', targetReplicas: 12 },
        { name: 'mid', targetReplicas: 6 },
      ],
      metricValue: 12,
    });
    expect(cronMetric([crons[0]!], 4, new Date('2026-06-10T12:00:00Z')).metricValue).toBe(4);
  });

  it('fails the whole metric for an unparseable window, naming it', () => {
    expect(() =>
      cronMetric([cron('a', '0 9 * * *', '0 17 * * *', 3), cron('b', '0 25 * * *', '0 17 * * *', 3)], 1, new Date()),
    ).toThrow(CronWindowError);
    expect(() => cronMetric([cron('b', '0 25 * * *', '0 17 * * *', 3)], 1, new Date())).toThrow(
      /spec\.crons\[0\]\.start/,
    );
  });
});

describe('nextCronBoundary (where a timer re-evaluates the cron metric)', () => {
  const crons = [cron('a', '0 9 * * *', '0 17 * * *', 3), cron('b', '30 12 * * *', '0 13 * * *', 5, 'Europe/Berlin')];
  it.each([
    ['before any window', '2026-06-10T06:00:00Z', '2026-06-10T09:00:00.000Z'],
    ['exactly at a start: the next one strictly after', '2026-06-10T09:00:00Z', '2026-06-10T10:30:00.000Z'],
    ['inside b (Berlin 12:30-13:00 = 10:30Z-11:00Z)', '2026-06-10T10:45:00Z', '2026-06-10T11:00:00.000Z'],
    ['after the last end', '2026-06-10T17:00:00Z', '2026-06-11T09:00:00.000Z'],
  ])('%s', (_name, now, want) => {
    expect(nextCronBoundary(crons, new Date(now))?.toISOString()).toBe(want);
  });

  it('follows DST: the spring-forward gap start moves to 03:30 EDT', () => {
    const ny = [cron('n', '30 2 * * *', '0 5 * * *', 4, 'America/New_York')];
    expect(nextCronBoundary(ny, new Date('2026-03-08T06:00:00Z'))?.toISOString()).toBe('2026-03-08T07:30:00.000Z');
  });

  it('is undefined without windows', () => {
    expect(nextCronBoundary([], new Date())).toBeUndefined();
  });
});
