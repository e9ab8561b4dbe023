import { describe, expect, it } from 'vitest';
import { cronZone, isCronWindowActive, parseCronWindow, type CronWindow } from './cron-window.js';
import { CronWindowError } from './errors.js';

const window = (start: string, end: string, timezone?: string): CronWindow => ({
  name: 'w',
  start,
  end,
  targetReplicas: 5,
  ...(timezone === undefined ? {} : { timezone }),
});
const activeAt = (w: CronWindow, iso: string, controllerZone = 'UTC') =>
  isCronWindowActive(parseCronWindow(w, 'spec.crons[0]', controllerZone), new Date(iso));

describe("isCronWindowActive (Crane's CronTrigger.IsActive)", () => {
  it.each([
    ['a second before the start', '2026-06-10T08:59:59Z', false],
    ['at the start second', '2026-06-10T09:00:00Z', true],
    ['half a second after the start', '2026-06-10T09:00:00.500Z', true],
    ['inside', '2026-06-10T12:00:00Z', true],
    ['a second before the end', '2026-06-10T16:59:59Z', true],
    [
      "at the end second (Crane's test says active, but its assertion is vacuous; the code says inactive)",
      '2026-06-10T17:00:00Z',
      false,
    ],
    ['after the end', '2026-06-10T20:00:00Z', false],
  ])('09:00-17:00 UTC is [start, end): %s', (_name, iso, want) => {
    expect(activeAt(window('0 9 * * *', '0 17 * * *'), iso)).toBe(want);
  });

  it.each([
    ['20:00', '2026-06-10T20:00:00Z', true],
    ['23:59:59', '2026-06-10T23:59:59Z', true],
    ['midnight (the end)', '2026-06-11T00:00:00Z', false],
    ['19:59:59', '2026-06-10T19:59:59Z', false],
  ])('a window ending at midnight (0 20 ? * * → 0 0 ? * *) at %s', (_name, iso, want) => {
    expect(activeAt(window('0 20 ? * *', '0 0 ? * *'), iso)).toBe(want);
  });

  it.each([
    ['03:00, after midnight', '2026-06-11T03:00:00Z', true],
    ['07:00, after the end', '2026-06-11T07:00:00Z', false],
    ['08:59:59', '2026-06-11T08:59:59Z', false],
    ['09:00', '2026-06-11T09:00:00Z', true],
  ])(
    'an end before the start in the day spans midnight (the docs call 0 9 → 0 6 invalid; the code does not): %s',
    (_n, iso, want) => {
      expect(activeAt(window('0 9 ? * *', '0 6 ? * *'), iso)).toBe(want);
    },
  );

  it.each(['2026-06-10T09:00:00Z', '2026-06-10T09:00:01Z', '2026-06-10T03:17:00Z'])(
    'start = end is always active (%s)',
    (iso) => {
      expect(activeAt(window('0 9 * * *', '0 9 * * *'), iso)).toBe(true);
    },
  );

  it.each([
    ['Sunday noon', '2026-06-14T12:00:00Z', true],
    ['Saturday 00:00', '2026-06-13T00:00:00Z', true],
    ['Monday 00:00 (the end)', '2026-06-15T00:00:00Z', false],
    ['Wednesday noon', '2026-06-10T12:00:00Z', false],
  ])('a weekend window with names and ? (0 0 ? * sat → 0 0 ? * mon): %s', (_n, iso, want) => {
    expect(activeAt(window('0 0 ? * sat', '0 0 ? * mon'), iso)).toBe(want);
  });

  it("computes next start and end in the window's zone", () => {
    const shanghai = window('0 9 * * *', '0 17 * * *', 'Asia/Shanghai'); // 01:00Z-09:00Z
    expect(activeAt(shanghai, '2026-06-10T00:59:59Z')).toBe(false);
    expect(activeAt(shanghai, '2026-06-10T01:00:00Z')).toBe(true);
    expect(activeAt(shanghai, '2026-06-10T08:59:59Z')).toBe(true);
    expect(activeAt(shanghai, '2026-06-10T09:00:00Z')).toBe(false);
  });

  describe('across DST in America/New_York', () => {
    const ny = (start: string, end: string) => window(start, end, 'America/New_York');
    it.each([
      // spring forward 2026-03-08: 02:00 EST → 03:00 EDT at 07:00Z
      [
        '01:00 EST → 03:00 EDT lasts one real hour: active at 06:59:59Z',
        ny('0 1 * * *', '0 3 * * *'),
        '2026-03-08T06:59:59Z',
        true,
      ],
      ['… and ends at 07:00Z (03:00 EDT)', ny('0 1 * * *', '0 3 * * *'), '2026-03-08T07:00:00Z', false],
      [
        'a start in the gap (02:30) moves to 03:30 EDT: not yet at 07:15Z',
        ny('30 2 * * *', '0 5 * * *'),
        '2026-03-08T07:15:00Z',
        false,
      ],
      ['… and starts at 07:30Z', ny('30 2 * * *', '0 5 * * *'), '2026-03-08T07:30:00Z', true],
      // fall back 2026-11-01: 02:00 EDT → 01:00 EST at 06:00Z
      [
        '01:30 EDT → 02:00 EST spans the repeated hour: active at 06:45Z (01:45 EST)',
        ny('30 1 * * *', '0 2 * * *'),
        '2026-11-01T06:45:00Z',
        true,
      ],
      ['… and ends at 02:00 EST (07:00Z)', ny('30 1 * * *', '0 2 * * *'), '2026-11-01T07:00:00Z', false],
      [
        'an end in the repeated hour happens once, at its first occurrence (01:30 EDT = 05:30Z)',
        ny('0 0 * * *', '30 1 * * *'),
        '2026-11-01T05:30:00Z',
        false,
      ],
      [
        '… so the second 01:15 (EST, 06:15Z) is outside the window',
        ny('0 0 * * *', '30 1 * * *'),
        '2026-11-01T06:15:00Z',
        false,
      ],
    ])('%s', (_name, w, iso, want) => {
      expect(activeAt(w, iso)).toBe(want);
    });
  });
});

describe('cronZone', () => {
  it.each([
    [undefined, 'Asia/Tokyo', 'UTC'],
    ['', 'Asia/Tokyo', 'UTC'],
    ['Local', 'Asia/Tokyo', 'Asia/Tokyo'],
    ['Local', undefined, 'UTC'],
    ['Europe/Berlin', 'Asia/Tokyo', 'Europe/Berlin'],
  ])('timezone %j with controller zone %j → %s', (tz, controller, want) => {
    expect(cronZone(tz, controller)).toBe(want);
  });

  it('an unset timezone is UTC even when the controller runs elsewhere; Local follows the controller', () => {
    expect(activeAt(window('0 9 * * *', '0 17 * * *'), '2026-06-10T01:00:00Z', 'Asia/Shanghai')).toBe(false);
    expect(activeAt(window('0 9 * * *', '0 17 * * *', 'Local'), '2026-06-10T01:00:00Z', 'Asia/Shanghai')).toBe(true);
  });
});

describe('parseCronWindow', () => {
  it.each([
    [window('61 * * * *', '0 17 * * *'), 'spec.crons[0].start', 'minute out of range'],
    [window('0 9 * * *', ''), 'spec.crons[0].end', 'empty expression'],
    [window('0 0 30 2 *', '0 1 * * *'), 'spec.crons[0].start', 'never fires'],
    [window('0 9 * * *', '0 17 * * *', 'Mars/Olympus'), 'spec.crons[0].timezone', 'unknown time zone'],
  ])('rejects %j naming %s', (w, field, reason) => {
    let err: unknown;
    try {
      parseCronWindow(w, 'spec.crons[0]');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CronWindowError);
    expect((err as CronWindowError).field).toBe(field);
    expect((err as CronWindowError).message).toContain(reason);
  });
});
