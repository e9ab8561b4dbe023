import type { CronFederatedHPA } from '@flotilla/api';
import { describe, expect, it } from 'vitest';
import { cronTimelines } from './cron.js';

const cron = (rules: object[], status?: object) =>
  ({
    apiVersion: 'autoscaling.karmada.io/v1alpha1',
    kind: 'CronFederatedHPA',
    metadata: { name: 'web-cron', namespace: 'default' },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, rules },
    ...(status ? { status } : {}),
  }) as CronFederatedHPA;

// A Friday, 10:00 in Shanghai.
const now = new Date('2026-03-06T02:00:00Z');

describe('cronTimelines', () => {
  it.each([
    {
      name: 'a weekday rule in Asia/Shanghai: next runs skip the weekend, shown in the rule zone',
      rule: { name: 'scale-up', schedule: '0 8 * * 1-5', targetReplicas: 10, timeZone: 'Asia/Shanghai' },
      next: ['2026-03-09 08:00 GMT+8', '2026-03-10 08:00 GMT+8', '2026-03-11 08:00 GMT+8'],
      excluded: [],
    },
    {
      name: 'an excluded date is marked, not run',
      rule: {
        name: 'scale-down',
        schedule: '0 20 * * *',
        targetReplicas: 3,
        timeZone: 'Europe/Berlin',
        excludeDates: ['2026-03-07'],
      },
      next: ['2026-03-06 20:00 CET', '2026-03-08 20:00 CET', '2026-03-09 20:00 CET'],
      excluded: ['2026-03-07 20:00 CET'],
    },
    {
      name: 'a suspended rule has no runs',
      rule: { name: 'off', schedule: '0 8 * * *', targetReplicas: 1, suspend: true },
      next: [],
      excluded: [],
    },
  ])('$name', ({ rule, next, excluded }) => {
    const [t] = cronTimelines(cron([rule]), now, { runsPerRule: 3 });
    expect(t!.next.map((r) => r.local)).toEqual(next);
    expect(t!.excluded.map((r) => r.local)).toEqual(excluded);
    if (next.length) expect(t!.next[0]!.values).toBe(`replicas ${(rule as { targetReplicas: number }).targetReplicas}`);
  });

  it('the history, newest first, in the rule zone, each outcome with its detail', () => {
    const [t] = cronTimelines(
      cron([{ name: 'up', schedule: '0 8 * * *', targetReplicas: 10, timeZone: 'Asia/Shanghai' }], {
        executionHistories: [
          {
            ruleName: 'up',
            successfulExecutions: [
              { scheduleTime: '2026-03-05T00:00:00Z', executionTime: '2026-03-05T00:00:01Z', appliedReplicas: 10 },
            ],
            failedExecutions: [
              { scheduleTime: '2026-03-04T00:00:00Z', executionTime: '2026-03-04T00:00:01Z', message: 'not found' },
            ],
            skippedExecutions: [
              {
                scheduleTime: '2026-03-03T00:00:00Z',
                executionTime: '2026-03-03T00:00:00Z',
                reason: 'ExcludedDate',
                message: 'excluded by 2026-03-03',
              },
            ],
          },
        ],
      }),
      now,
    );
    expect(t!.history).toEqual([
      {
        scheduleTime: '2026-03-05T00:00:00Z',
        local: '2026-03-05 08:00 GMT+8',
        outcome: 'Succeeded',
        detail: 'applied replicas 10',
      },
      { scheduleTime: '2026-03-04T00:00:00Z', local: '2026-03-04 08:00 GMT+8', outcome: 'Failed', detail: 'not found' },
      {
        scheduleTime: '2026-03-03T00:00:00Z',
        local: '2026-03-03 08:00 GMT+8',
        outcome: 'Skipped',
        detail: 'excluded by 2026-03-03',
      },
    ]);
  });
});
