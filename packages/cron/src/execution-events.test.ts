import { describe, expect, it } from 'vitest';
import { scaleEffect } from './effects.js';
import { executionEvent, missedEvent, nextScheduledData } from './execution-events.js';
import { evolveHistory } from './history.js';
import { planCronExecutions, ruleClock } from './plan.js';
import type { CronFederatedHPARule } from '@flotilla/api';

const fhpa = { apiVersion: 'autoscaling.karmada.io/v1alpha1', kind: 'FederatedHPA', name: 'shop-fhpa' };
const up: CronFederatedHPARule = {
  name: 'up',
  schedule: '30 08 * * *',
  targetMinReplicas: 1000,
  failedHistoryLimit: 0,
};
const down: CronFederatedHPARule = {
  name: 'down',
  schedule: '0 11 * * *',
  targetMinReplicas: 1,
  successfulHistoryLimit: 1,
};

describe('execution events fold into the status Karmada would show', () => {
  it('a min above max fails with a Warning, a later run succeeds, history keeps what the limits allow', () => {
    const object = { spec: { scaleTargetRef: fhpa, rules: [up, down] } };
    const first = planCronExecutions({ object, state: [], now: new Date('2026-05-04T08:00:00Z') });
    let status = evolveHistory(undefined, { type: 'CronNextScheduled', data: nextScheduledData(first) });

    const at0830 = planCronExecutions({ object, state: first.state, now: new Date('2026-05-04T08:30:00.015Z') });
    const exec = at0830.execute[0];
    if (!exec) throw new Error('expected an execution');
    const effect = scaleEffect(fhpa, 'default', { spec: { minReplicas: 1, maxReplicas: 10 } }, exec.values);
    const failed = executionEvent(at0830, exec, up, effect, new Date('2026-05-04T08:30:00.015Z'));
    expect(failed.type).toBe('CronRuleFailed');
    expect(failed.type === 'CronRuleFailed' && failed.data.kubeEvent).toEqual({
      type: 'Warning',
      reason: 'ScaleFailed',
      message: expect.stringContaining('spec.minReplicas to 1000: above its spec.maxReplicas 10'),
    });
    status = evolveHistory(status, failed);

    const at1100 = planCronExecutions({ object, state: at0830.state, now: new Date('2026-05-04T11:00:00.030Z') });
    const exec2 = at1100.execute[0];
    if (!exec2) throw new Error('expected an execution');
    const ok = executionEvent(
      at1100,
      exec2,
      down,
      scaleEffect(fhpa, 'default', { spec: { minReplicas: 1, maxReplicas: 10 } }, exec2.values),
      new Date('2026-05-04T11:00:00.030Z'),
    );
    expect(ok).toEqual({
      type: 'CronRuleExecuted',
      data: {
        ruleName: 'down',
        scheduleTime: '2026-05-04T11:00:00Z',
        executionTime: '2026-05-04T11:00:00.030Z',
        nextExecutionTime: '2026-05-05T11:00:00.000Z',
        appliedMinReplicas: 1,
        successfulHistoryLimit: 1,
      },
    });
    status = evolveHistory(status, ok);
    expect(status.executionHistories).toEqual([
      { ruleName: 'up', nextExecutionTime: '2026-05-05T08:30:00Z' }, // failedHistoryLimit 0 keeps no failure
      {
        ruleName: 'down',
        nextExecutionTime: '2026-05-05T11:00:00Z',
        successfulExecutions: [
          { scheduleTime: '2026-05-04T11:00:00Z', executionTime: '2026-05-04T11:00:00Z', appliedMinReplicas: 1 },
        ],
      },
    ]);
  });

  it('a write failure becomes a failed execution; a missed one is recorded with its message', () => {
    const workload = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop' };
    const a: CronFederatedHPARule = { name: 'a', schedule: '0 8 * * *', targetReplicas: 3 };
    const b: CronFederatedHPARule = { name: 'b', schedule: '0 9 * * *', targetReplicas: 4 };
    const object = { spec: { scaleTargetRef: workload, rules: [a, b] } };
    const state = [
      { ruleName: 'a', clock: ruleClock(a), nextDue: '2026-05-04T08:00:00.000Z' },
      { ruleName: 'b', clock: ruleClock(b), nextDue: '2026-05-04T09:00:00.000Z' },
    ];
    const now = new Date('2026-05-04T09:01:00Z');
    const plan = planCronExecutions({ object, state, now });
    const [missed] = plan.missed;
    const [exec] = plan.execute;
    if (!missed || !exec) throw new Error('expected one missed and one execution');
    const m = missedEvent(plan, missed, a, now);
    expect(m).toMatchObject({
      type: 'CronRuleFailed',
      data: { ruleName: 'a', missed: true, nextExecutionTime: '2026-05-05T08:00:00.000Z', failedHistoryLimit: 3 },
    });
    const w = executionEvent(
      plan,
      exec,
      b,
      { ok: false, reason: 'WriteFailed', message: 'conflict writing the scale' },
      now,
    );
    expect(w).toMatchObject({
      type: 'CronRuleFailed',
      data: { ruleName: 'b', message: 'conflict writing the scale', missed: false, reason: 'WriteFailed' },
    });
  });
});
