import { describe, expect, it } from 'vitest';
import { MAX_WHAT_IF_EXECUTIONS, whatIfCron } from './what-if.js';

const shop = {
  apiVersion: 'autoscaling.karmada.io/v1alpha1',
  kind: 'CronFederatedHPA',
  metadata: { name: 'cron-federated-hpa', namespace: 'default' },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop' },
    rules: [
      { name: 'Scale-Up', schedule: '30 08 * * *', targetReplicas: 1000 },
      { name: 'Scale-Down', schedule: '0 11 * * *', targetReplicas: 1 },
      { name: 'paused', schedule: '0 12 * * *', targetReplicas: 5, suspend: true },
    ],
  },
};
const zones = {
  apiVersion: 'autoscaling.karmada.io/v1alpha1',
  kind: 'CronFederatedHPA',
  metadata: { name: 'zones', namespace: 'default' },
  spec: {
    scaleTargetRef: { apiVersion: 'autoscaling.karmada.io/v1alpha1', kind: 'FederatedHPA', name: 'shop-fhpa' },
    rules: [
      { name: 'scale-up-asia-shanghai', schedule: '30 07 * * *', targetMinReplicas: 1000, timeZone: 'Asia/Shanghai' },
      {
        name: 'scale-up-america-los-angeles',
        schedule: '30 07 * * *',
        targetMinReplicas: 1000,
        timeZone: 'America/Los_Angeles',
      },
    ],
  },
};

describe('whatIfCron', () => {
  it("writes each rule's next execution time as the controller would at now", () => {
    const r = whatIfCron([shop, zones], new Date('2026-05-04T09:04:00Z'));
    expect(r.items.map((i) => i.status?.executionHistories)).toEqual([
      [
        { ruleName: 'Scale-Up', nextExecutionTime: '2026-05-05T08:30:00Z' },
        { ruleName: 'Scale-Down', nextExecutionTime: '2026-05-04T11:00:00Z' },
        { ruleName: 'paused' },
      ],
      [
        { ruleName: 'scale-up-asia-shanghai', nextExecutionTime: '2026-05-04T23:30:00Z' },
        { ruleName: 'scale-up-america-los-angeles', nextExecutionTime: '2026-05-04T14:30:00Z' },
      ],
    ]);
    expect(r.executions).toEqual([]);
    expect(r.items[0]?.spec).toEqual(shop.spec);
  });

  it('lists executions in (now, until] with the values they apply, in time order', () => {
    const r = whatIfCron([shop, zones], new Date('2026-05-04T08:30:00Z'), new Date('2026-05-05T08:30:00Z'));
    expect(r.executions).toEqual([
      { ruleName: 'Scale-Down', scheduleTime: '2026-05-04T11:00:00Z', targetReplicas: 1 },
      { ruleName: 'scale-up-america-los-angeles', scheduleTime: '2026-05-04T14:30:00Z', targetMinReplicas: 1000 },
      { ruleName: 'scale-up-asia-shanghai', scheduleTime: '2026-05-04T23:30:00Z', targetMinReplicas: 1000 },
      { ruleName: 'Scale-Up', scheduleTime: '2026-05-05T08:30:00Z', targetReplicas: 1000 },
    ]);
  });

  it('keeps histories of rules still present and drops others, and does not touch its input', () => {
    const withStatus = {
      ...shop,
      status: {
        executionHistories: [
          {
            ruleName: 'Scale-Up',
            nextExecutionTime: '2026-05-04T08:30:00Z',
            successfulExecutions: [
              { scheduleTime: '2026-05-03T08:30:00Z', executionTime: '2026-05-03T08:30:00Z', appliedReplicas: 1000 },
            ],
          },
          { ruleName: 'old', nextExecutionTime: '2026-05-04T08:30:00Z' },
        ],
      },
    };
    const before = structuredClone(withStatus);
    const r = whatIfCron([withStatus], new Date('2026-05-04T09:04:00Z'));
    expect(
      r.items[0]?.status?.executionHistories?.map((h) => [
        h.ruleName,
        h.nextExecutionTime,
        h.successfulExecutions?.length,
      ]),
    ).toEqual([
      ['Scale-Up', '2026-05-05T08:30:00Z', 1],
      ['Scale-Down', '2026-05-04T11:00:00Z', undefined],
      ['paused', undefined, undefined],
    ]);
    expect(withStatus).toEqual(before);
  });

  it('uses the given controller zone for rules without one', () => {
    const r = whatIfCron([shop], new Date('2026-05-04T00:00:00Z'), undefined, 'Asia/Shanghai');
    expect(r.items[0]?.status?.executionHistories?.[0]?.nextExecutionTime).toBe('2026-05-04T00:30:00Z'); // 08:30 in Shanghai
  });

  it('stops a runaway listing and says so', () => {
    const fast = {
      ...shop,
      spec: { ...shop.spec, rules: [{ name: 'tick', schedule: '* * * * * *', targetReplicas: 1 }] },
    };
    const r = whatIfCron([fast], new Date('2026-05-04T00:00:00Z'), new Date('2026-05-05T00:00:00Z'));
    expect(r.executions).toHaveLength(MAX_WHAT_IF_EXECUTIONS);
    expect(r.truncated).toBe(true);
  });
});

describe('whatIfCron: excludeDates', () => {
  it('lists the skipped times apart from the executions, with the entry that skips them', () => {
    const holidays = structuredClone(shop);
    (holidays.spec.rules[0] as Record<string, unknown>).excludeDates = ['2026-12-25'];
    const r = whatIfCron([holidays], new Date('2026-12-24T09:00:00Z'), new Date('2026-12-26T09:00:00Z'));
    expect(r.executions.map((e) => [e.ruleName, e.scheduleTime])).toEqual([
      ['Scale-Down', '2026-12-24T11:00:00Z'],
      ['Scale-Down', '2026-12-25T11:00:00Z'],
      ['Scale-Up', '2026-12-26T08:30:00Z'],
    ]);
    expect(r.skipped).toEqual([
      {
        ruleName: 'Scale-Up',
        scheduleTime: '2026-12-25T08:30:00Z',
        excludeDate: '2026-12-25',
        message: 'skipped: 2026-12-25 (UTC) is excluded by excludeDates entry "2026-12-25"',
      },
    ]);
  });

  it('has no skipped list for rules without excludeDates', () => {
    expect(whatIfCron([shop], new Date('2026-12-24T09:00:00Z'), new Date('2026-12-26T09:00:00Z'))).not.toHaveProperty(
      'skipped',
    );
  });
});
