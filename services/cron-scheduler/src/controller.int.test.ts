import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ruleClock } from '@flotilla/cron';
import { eventually, metricSum } from '@flotilla/testkit';
import { Registry } from 'prom-client';
import type { CronController } from './controller.js';
import { RuleStateStore } from './rule-state-store.js';
import { cronHpa, deployment, harness, sleep, type Harness } from './testing/harness.js';

let h: Harness;
let controller: CronController;
const registry = new Registry();
const deployRef = (name: string) => ({ apiVersion: 'apps/v1', kind: 'Deployment', name });
const replicasIn = async (x: Harness, name: string) =>
  ((await x.store.get({ kind: 'Deployment', namespace: 'default', name }))?.spec as { replicas?: number } | undefined)
    ?.replicas;
const replicasOf = (name: string) => replicasIn(h, name);

beforeAll(async () => {
  h = await harness('cron');
  controller = h.controller({ registry });
  await controller.start();
});
afterAll(async () => {
  await h?.dispose();
});

describe('cron scheduler (in-process, real NATS and Redis)', () => {
  it('a 6-field rule scales a Deployment at each even second, once per schedule time, and records it', async () => {
    await h.apply(deployment('web', 1));
    await h.apply(
      cronHpa('web-cron', deployRef('web'), [
        { name: 'scale-up', schedule: '*/2 * * * * *', targetReplicas: 4, successfulHistoryLimit: 2 },
      ]),
    );
    await eventually(
      async () => ((await replicasOf('web')) === 4 ? true : undefined),
      8000,
      'the Deployment scaled to 4',
    );
    const executed = await eventually(
      async () => {
        const ev = (await h.events('web-cron')).filter((e) => e.type === 'CronRuleExecuted');
        return ev.length >= 2 ? ev : undefined;
      },
      8000,
      'two executions',
    );
    const times = executed.map((e) => e.data.scheduleTime as string);
    expect(new Set(times).size).toBe(times.length);
    for (const e of executed) {
      expect(new Date(e.data.scheduleTime as string).getUTCSeconds() % 2).toBe(0);
      expect(Date.parse(e.data.executionTime as string)).toBeGreaterThanOrEqual(
        Date.parse(e.data.scheduleTime as string),
      );
      expect(e.data).toMatchObject({ ruleName: 'scale-up', appliedReplicas: 4, successfulHistoryLimit: 2 });
      expect(e.data).not.toHaveProperty('appliedMinReplicas');
    }
    const status = await h.status('web-cron');
    const entry = status.executionHistories?.[0];
    expect(entry?.ruleName).toBe('scale-up');
    expect(entry?.successfulExecutions?.length).toBeLessThanOrEqual(2);
    expect(entry?.successfulExecutions?.[0]).toMatchObject({ appliedReplicas: 4 });
    expect(Date.parse(entry!.nextExecutionTime!)).toBeGreaterThan(
      Date.parse(entry!.successfulExecutions![0]!.scheduleTime),
    );
    // The first event announced the rule before it ever ran.
    expect((await h.events('web-cron'))[0]?.type).toBe('CronNextScheduled');
    expect(await metricSum(registry, 'flotilla_cron_executions_total', { result: 'succeeded' })).toBeGreaterThanOrEqual(
      2,
    );
    expect(
      await metricSum(registry, 'flotilla_cron_execution_lateness_seconds', { le: '+Inf' }),
    ).toBeGreaterThanOrEqual(2);
    expect(await metricSum(registry, 'flotilla_objects', { kind: 'CronFederatedHPA' })).toBeGreaterThanOrEqual(1);
    expect(
      await metricSum(registry, 'flotilla_reconcile_total', { controller: 'cron-scheduler', result: 'error' }),
    ).toBe(0);
  });

  it('a missing target is a failed execution with a Warning event, and the next schedule still fires', async () => {
    await h.apply(
      cronHpa('ghost-cron', deployRef('ghost'), [
        { name: 'up', schedule: '*/2 * * * * *', targetReplicas: 3, failedHistoryLimit: 0 },
      ]),
    );
    const failed = await eventually(
      async () => {
        const ev = (await h.events('ghost-cron')).filter((e) => e.type === 'CronRuleFailed');
        return ev.length >= 2 ? ev : undefined;
      },
      8000,
      'two failed executions',
    );
    expect(failed[0]?.data).toMatchObject({
      ruleName: 'up',
      missed: false,
      reason: 'TargetNotFound',
      message: 'Deployment default/ghost not found',
      kubeEvent: { type: 'Warning', reason: 'ScaleFailed' },
    });
    expect(failed[0]?.data.scheduleTime).not.toBe(failed[1]?.data.scheduleTime);
    expect(await metricSum(registry, 'flotilla_cron_executions_total', { result: 'failed' })).toBeGreaterThanOrEqual(2);
    // failedHistoryLimit 0 keeps none, and folding does not crash.
    const status = await h.status('ghost-cron');
    expect(status.executionHistories?.[0]).toEqual({ ruleName: 'up', nextExecutionTime: expect.any(String) });
  });

  it('a FederatedHPA min above its max is refused with the reason; a max raise in the same second applies', async () => {
    await h.apply({
      apiVersion: 'autoscaling.karmada.io/v1alpha1',
      kind: 'FederatedHPA',
      metadata: { name: 'api-hpa', namespace: 'default' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api' },
        minReplicas: 1,
        maxReplicas: 5,
        metrics: [],
      },
    });
    await h.apply(
      cronHpa('api-cron', { apiVersion: 'autoscaling.karmada.io/v1alpha1', kind: 'FederatedHPA', name: 'api-hpa' }, [
        { name: 'too-high', schedule: '*/2 * * * * *', targetMinReplicas: 8 },
        { name: 'raise-max', schedule: '*/2 * * * * *', targetMaxReplicas: 6 },
      ]),
    );
    const events = await eventually(
      async () => {
        const ev = await h.events('api-cron');
        return ev.some((e) => e.type === 'CronRuleFailed') && ev.some((e) => e.type === 'CronRuleExecuted')
          ? ev
          : undefined;
      },
      8000,
      'a failure and a success',
    );
    const fail = events.find((e) => e.type === 'CronRuleFailed')!;
    expect(fail.data.ruleName).toBe('too-high');
    expect(fail.data.message).toMatch(
      /cannot set FederatedHPA default\/api-hpa spec.minReplicas to 8: above its spec.maxReplicas/,
    );
    const ok = events.find((e) => e.type === 'CronRuleExecuted')!;
    expect(ok.data).toMatchObject({ ruleName: 'raise-max', appliedMaxReplicas: 6 });
    expect(ok.data).not.toHaveProperty('appliedMinReplicas');
    const hpa = await h.store.get({ kind: 'FederatedHPA', namespace: 'default', name: 'api-hpa' });
    expect(hpa?.spec).toMatchObject({ minReplicas: 1, maxReplicas: 6 });
  });
});

describe('catch-up after an outage', () => {
  // Its own prefix: no other controller may plan these objects before the outage state is stored.
  let o: Harness;
  beforeAll(async () => {
    o = await harness('cron-catchup');
  });
  afterAll(async () => {
    await o?.dispose();
  });
  /** Stores state as if a controller had planned `rules` earlier, with these next due instants, then starts one. */
  async function outage(name: string, dues: Record<string, Date>, catchUpWindowMs: number) {
    const rules = [
      { name: 'scale-up', schedule: '0 0 1 1 *', targetReplicas: 10 },
      { name: 'scale-down', schedule: '0 0 1 1 *', targetReplicas: 2 },
    ];
    await o.apply(deployment(name, 5));
    const obj = await o.apply(cronHpa(`${name}-cron`, deployRef(name), rules));
    const state = rules.map((r) => ({ ruleName: r.name, clock: ruleClock(r), nextDue: dues[r.name]!.toISOString() }));
    await new RuleStateStore(o.bus).put(
      obj.metadata.uid!,
      { objectKey: `CronFederatedHPA.default.${name}-cron`, rules: state },
      0,
    );
    const outageRegistry = new Registry();
    const c = o.controller({ catchUpWindowMs, registry: outageRegistry });
    await c.start();
    const events = await eventually(
      async () => {
        const ev = (await o.events(`${name}-cron`)).filter((e) => e.type !== 'CronNextScheduled');
        return ev.length >= 2 ? ev : undefined;
      },
      8000,
      'two outcomes',
    );
    await c.stop();
    const counted = Object.fromEntries(
      await Promise.all(
        ['succeeded', 'failed', 'missed'].map(async (result) => [
          result,
          await metricSum(outageRegistry, 'flotilla_cron_executions_total', { result }),
        ]),
      ),
    );
    return { events, counted };
  }

  it('within the window only the latest missed execution per field applies; the older is recorded as missed', async () => {
    const now = Date.now();
    // A scale-up and a later scale-down, both missed: the target ends scaled down.
    const { events, counted } = await outage(
      'shop',
      { 'scale-up': new Date(now - 10 * 60_000), 'scale-down': new Date(now - 5 * 60_000) },
      15 * 60_000,
    );
    expect(events.map((e) => [e.type, e.data.ruleName])).toEqual([
      ['CronRuleFailed', 'scale-up'],
      ['CronRuleExecuted', 'scale-down'],
    ]);
    expect(events[0]?.data.message).toMatch(/^missed: .*superseded by rule "scale-down"/);
    expect(events[0]?.data).toMatchObject({ missed: true, kubeEvent: { type: 'Warning', reason: 'ScheduleMissed' } });
    // Applied late, with its real execution time.
    expect(
      Date.parse(events[1]!.data.executionTime as string) - Date.parse(events[1]!.data.scheduleTime as string),
    ).toBeGreaterThanOrEqual(5 * 60_000 - 1000);
    expect(await replicasIn(o, 'shop')).toBe(2);
    expect(counted).toEqual({ succeeded: 1, failed: 0, missed: 1 });
  });

  it('outside the window misses are recorded, not applied', async () => {
    const now = Date.now();
    const { events, counted } = await outage(
      'shop2',
      { 'scale-up': new Date(now - 10 * 60_000), 'scale-down': new Date(now - 5 * 60_000) },
      60_000,
    );
    expect(counted).toEqual({ succeeded: 0, failed: 0, missed: 2 });
    expect(events.map((e) => [e.type, e.data.ruleName, e.data.missed])).toEqual([
      ['CronRuleFailed', 'scale-up', true],
      ['CronRuleFailed', 'scale-down', true],
    ]);
    expect(events[1]?.data.message).toMatch(/more than the catch-up window \(1m\) later; not applied/);
    expect(await replicasIn(o, 'shop2')).toBe(5);
  });

  it('a restarted controller resumes from the stored due instants instead of recomputing from now', async () => {
    const ev = await h.events('web-cron');
    await controller.stop();
    const stoppedAt = Date.now();
    await sleep(2500); // at least one even second passes with no controller
    controller = h.controller();
    await controller.start();
    const after = await eventually(
      async () => {
        const all = (await h.events('web-cron')).filter((e) => e.type !== 'CronNextScheduled');
        return all.length >= ev.filter((e) => e.type !== 'CronNextScheduled').length + 2 ? all : undefined;
      },
      8000,
      'executions after the restart',
    );
    const times = after.map((e) => Date.parse(e.data.scheduleTime as string));
    expect(new Set(times).size).toBe(times.length);
    // The even second that fell in the outage is caught up (applied late), not skipped.
    const missedSecond = times.find((t) => t > stoppedAt && t < stoppedAt + 2500);
    expect(missedSecond).toBeDefined();
  });
});
