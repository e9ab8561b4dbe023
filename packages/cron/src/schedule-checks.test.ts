import { admit, AdmissionError, type FieldError } from '@flotilla/api';
import { describe, expect, it } from 'vitest';
import { scheduleChecks } from './schedule-checks.js';

// biome-ignore lint/suspicious/noExplicitAny: fault cases write wrongly typed values at arbitrary paths of a manifest
type Obj = Record<string, any>;

function causesOf(input: unknown): FieldError[] {
  try {
    admit(input, { schedules: scheduleChecks });
  } catch (err) {
    if (err instanceof AdmissionError) return err.causes;
    throw err;
  }
  throw new Error('expected an AdmissionError, but the object was admitted');
}

const cronWorkload = (): Obj => ({
  apiVersion: 'autoscaling.karmada.io/v1alpha1',
  kind: 'CronFederatedHPA',
  metadata: { name: 'shop-cron', namespace: 'default' },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop' },
    rules: [
      { name: 'up', schedule: '30 8 * * *', targetReplicas: 10 },
      { name: 'down', schedule: '0 11 * * *', targetReplicas: 1, timeZone: 'Asia/Shanghai' },
    ],
  },
});

const ehpa = (): Obj => ({
  apiVersion: 'autoscaling.crane.io/v1alpha1',
  kind: 'EffectiveHorizontalPodAutoscaler',
  metadata: { name: 'php-apache' },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'php-apache' },
    minReplicas: 1,
    maxReplicas: 10,
    crons: [{ name: 'cron1', timezone: 'Local', start: '0 6 ? * *', end: '0 9 ? * *', targetReplicas: 8 }],
  },
});

type Case = [title: string, base: () => Obj, mutate: (o: Obj) => void, field: string, message: string];

describe('admission with the cron checks: schedules and time zones', () => {
  it.each([cronWorkload, ehpa])('the base object is admitted (%#)', (base) => {
    expect(() => admit(base(), { schedules: scheduleChecks })).not.toThrow();
  });

  it("admits Alibaba's excludeDates forms, dates and ranges, and leaves a rule without them as Karmada wrote it", () => {
    const o = cronWorkload();
    o.spec.rules[0].excludeDates = [
      '* * * 15 11 *',
      '* * * * * 5',
      '* * 24-31 12 *',
      '2026-12-25',
      '2026-12-24/2027-01-02',
    ];
    const admitted = admit(o, { schedules: scheduleChecks }) as Obj;
    expect(admitted.spec.rules[0].excludeDates).toEqual(o.spec.rules[0].excludeDates);
    expect(admitted.spec.rules[1]).not.toHaveProperty('excludeDates');
  });

  it.each<Case>([
    [
      'CronFederatedHPA: invalid cron',
      cronWorkload,
      (o) => (o.spec.rules[1].schedule = '61 * * * *'),
      'spec.rules[1].schedule',
      'invalid cron expression "61 * * * *"',
    ],
    [
      'CronFederatedHPA: invalid time zone',
      cronWorkload,
      (o) => (o.spec.rules[0].timeZone = 'Mars/Olympus'),
      'spec.rules[0].timeZone',
      'unknown time zone "Mars/Olympus"',
    ],
    [
      'CronFederatedHPA: an excludeDates entry that is not a calendar date',
      cronWorkload,
      (o) => (o.spec.rules[1].excludeDates = ['2026-12-25', '2026-02-30']),
      'spec.rules[1].excludeDates[1]',
      'invalid excludeDates entry "2026-02-30": 2026-02-30 is not a calendar date',
    ],
    [
      'CronFederatedHPA: an excludeDates range that runs backwards',
      cronWorkload,
      (o) => (o.spec.rules[0].excludeDates = ['2027-01-02/2026-12-24']),
      'spec.rules[0].excludeDates[0]',
      'the range ends (2026-12-24) before it starts (2027-01-02)',
    ],
    [
      'CronFederatedHPA: an excludeDates day pattern out of range',
      cronWorkload,
      (o) => (o.spec.rules[0].excludeDates = ['* * * 32 12 *']),
      'spec.rules[0].excludeDates[0]',
      'day-of-month out of range',
    ],
    [
      'CronFederatedHPA: an excludeDates entry of the wrong type',
      cronWorkload,
      (o) => (o.spec.rules[0].excludeDates = [20261225]),
      'spec.rules[0].excludeDates[0]',
      'string',
    ],
    [
      'EHPA: invalid cron start',
      ehpa,
      (o) => (o.spec.crons[0].start = '0 25 * * *'),
      'spec.crons[0].start',
      'invalid cron expression',
    ],
    [
      'EHPA: a cron window end that never fires',
      ehpa,
      (o) => (o.spec.crons[0].end = '0 0 30 2 *'),
      'spec.crons[0].end',
      '',
    ],
    [
      'EHPA: unknown cron time zone',
      ehpa,
      (o) => (o.spec.crons[0].timezone = 'Nowhere/Town'),
      'spec.crons[0].timezone',
      'unknown time zone "Nowhere/Town"',
    ],
  ])('%s', (_title, base, mutate, field, message) => {
    const o = base();
    mutate(o);
    const causes = causesOf(o);
    expect(causes).toContainEqual({ field, message: expect.stringContaining(message) });
    expect(causes.map((c) => c.field)).toEqual([field]);
  });

  it('formats the message like kubectl, all causes joined with "; "', () => {
    const bad = {
      apiVersion: 'autoscaling.karmada.io/v1alpha1',
      kind: 'CronFederatedHPA',
      metadata: { name: 'x' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop' },
        rules: [
          { name: 'up', schedule: '0 8 * * *', targetReplicas: 3 },
          { name: 'down', schedule: '61 * * * *', targetReplicas: 1 },
          { name: 'up', schedule: '0 9 * * *', targetReplicas: 1 },
        ],
      },
    };
    let err: unknown;
    try {
      admit(bad, { schedules: scheduleChecks });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AdmissionError);
    const e = err as AdmissionError;
    expect(
      e.message.startsWith(
        'CronFederatedHPA "x" is invalid: spec.rules[1].schedule: invalid cron expression "61 * * * *"',
      ),
    ).toBe(true);
    expect(e.message).toContain('; spec.rules[2].name: Duplicate value: "up"');
    expect(e.kind).toBe('CronFederatedHPA');
    expect(e.objectName).toBe('x');
  });
});
