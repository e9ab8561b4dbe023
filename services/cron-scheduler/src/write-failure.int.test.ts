import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ObjectStore } from '@flotilla/store';
import { eventually } from '@flotilla/testkit';
import { cronHpa, deployment, harness, type Harness } from './testing/harness.js';

/** The real store, except that every write of one object fails as a NATS outage would. */
class StoreFailingOn extends ObjectStore {
  attempts = 0;
  constructor(
    h: Harness,
    private readonly failing: string,
  ) {
    super(h.bus);
  }
  override update(...args: Parameters<ObjectStore['update']>) {
    if (args[0].name !== this.failing) return super.update(...args);
    this.attempts++;
    return Promise.reject(new Error('simulated write failure'));
  }
}

let h: Harness;
let store: StoreFailingOn;

beforeAll(async () => {
  h = await harness('cron-wf');
  store = new StoreFailingOn(h, 'stuck');
  await h.controller({ store, maxWriteAttempts: 2 }).start();
});
afterAll(async () => {
  await h?.dispose();
});

describe('cron scheduler: a target whose writes keep failing', () => {
  it('records each schedule time as failed after its attempts, with a Warning event, and the next one still fires', async () => {
    await h.apply(deployment('stuck', 1));
    await h.apply(deployment('fine', 1));
    const rules = [{ name: 'up', schedule: '*/2 * * * * *', targetReplicas: 3 }];
    await h.apply(cronHpa('stuck-cron', { apiVersion: 'apps/v1', kind: 'Deployment', name: 'stuck' }, rules));
    await h.apply(cronHpa('fine-cron', { apiVersion: 'apps/v1', kind: 'Deployment', name: 'fine' }, rules));

    const failed = await eventually(
      async () => {
        const ev = (await h.events('stuck-cron')).filter((e) => e.type === 'CronRuleFailed');
        return ev.length >= 2 ? ev : undefined;
      },
      15_000,
      'two failed executions',
    );
    expect(failed[0]?.data).toMatchObject({
      ruleName: 'up',
      missed: false,
      reason: 'WriteFailed',
      message: 'scaling Deployment default/stuck failed: simulated write failure',
      kubeEvent: { type: 'Warning', reason: 'ScaleFailed' },
    });
    expect(failed[1]?.data.scheduleTime).not.toBe(failed[0]?.data.scheduleTime);
    expect(store.attempts).toBeGreaterThanOrEqual(4);
    expect((await h.events('stuck-cron')).filter((e) => e.type === 'CronRuleExecuted')).toEqual([]);
    const stuck = await h.store.get({ kind: 'Deployment', namespace: 'default', name: 'stuck' });
    expect((stuck?.spec as { replicas: number } | undefined)?.replicas).toBe(1);

    // The other object's writes go through meanwhile.
    const fine = await h.store.get({ kind: 'Deployment', namespace: 'default', name: 'fine' });
    expect((fine?.spec as { replicas: number } | undefined)?.replicas).toBe(3);
    // Each failed reconcile left a Warning on the object, as the controller kit records every one.
    const warnings = (await h.events('stuck-cron')).filter((e) => e.type === 'ReconcileFailed');
    expect(warnings.length).toBeGreaterThanOrEqual(2);
    expect(warnings[0]?.data).toMatchObject({
      controller: 'cron-scheduler',
      kubeEvent: { type: 'Warning', reason: 'CronSchedulerFailed', message: 'simulated write failure' },
    });
    const status = await h.status('stuck-cron');
    expect(status.executionHistories?.[0]?.failedExecutions?.length).toBeGreaterThanOrEqual(2);
  }, 30_000);
});
