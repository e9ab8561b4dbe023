// End to end: the built gateway, status writer and cron scheduler as processes on a fresh prefix, driven by the
// real CLI. 6-field schedules every 2-4 s keep it short.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectBus, eventTypeOf, KvWatchInclude, readEvents, type Bus } from '@flotilla/bus';
import { eventually, REDIS_URL } from '@flotilla/testkit';
import { Redis } from 'ioredis';
import { flotilla } from './support/cli.js';
import { startSuite, type RunningSuite } from './support/suite.js';

let s: RunningSuite;
let bus: Bus;
let redis: Redis;

beforeAll(async () => {
  s = await startSuite(['gateway', 'status-writer', 'cron-scheduler']);
  bus = await connectBus({ url: s.env.NATS_URL!, prefix: s.env.FLOTILLA_PREFIX! });
  redis = new Redis(REDIS_URL);
}, 60_000);

afterAll(async () => {
  await bus?.close();
  await s?.stop();
  if (redis) {
    // The suite removes the prefix's streams and buckets; the queue, the leases and their counters are ours.
    const keys = await redis.keys(`${s.env.FLOTILLA_PREFIX}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  }
}, 60_000);

async function apply(yaml: string): Promise<void> {
  const r = await flotilla(s.env, ['apply', '-f', '-'], yaml);
  expect(r.code, r.err).toBe(0);
}

interface History {
  ruleName: string;
  nextExecutionTime?: string;
  successfulExecutions?: Array<{ scheduleTime: string; executionTime: string; appliedReplicas?: number; appliedMinReplicas?: number }>;
  failedExecutions?: Array<{ scheduleTime: string; message: string }>;
}

async function histories(name: string): Promise<History[]> {
  const r = await flotilla(s.env, ['get', 'cronfhpa', name, '-n', 'default', '-o', 'json']);
  expect(r.code, r.err).toBe(0);
  const o = JSON.parse(r.out) as { status?: { executionHistories?: History[] } };
  return o.status?.executionHistories ?? [];
}

async function spec(kind: string, name: string): Promise<Record<string, unknown>> {
  const r = await flotilla(s.env, ['get', kind, name, '-n', 'default', '-o', 'json']);
  expect(r.code, r.err).toBe(0);
  return (JSON.parse(r.out) as { spec: Record<string, unknown> }).spec;
}

async function outcomes(name: string) {
  const out: Array<{ type: string; ruleName: string; scheduleTime: string; missed?: boolean }> = [];
  for await (const d of readEvents(bus, { filter: { kind: 'CronFederatedHPA', name } })) {
    const type = eventTypeOf(d.event);
    if (type === 'CronNextScheduled') continue;
    const data = d.event.data as { ruleName: string; scheduleTime: string; missed?: boolean };
    out.push({ type, ruleName: data.ruleName, scheduleTime: data.scheduleTime, missed: data.missed });
  }
  return out;
}

const deployment = (name: string, replicas: number) => `
apiVersion: apps/v1
kind: Deployment
metadata: { name: ${name}, namespace: default }
spec:
  replicas: ${replicas}
  selector: { matchLabels: { app: ${name} } }
  template:
    metadata: { labels: { app: ${name} } }
    spec: { containers: [{ name: c, image: nginx }] }
`;

describe('cron scheduler end to end', () => {
  it('scales a Deployment up and down, sets a FederatedHPA min, honours suspend, renames and history limits', async () => {
    await apply(deployment('web', 1));
    await apply(`
apiVersion: autoscaling.karmada.io/v1alpha1
kind: FederatedHPA
metadata: { name: web-hpa, namespace: default }
spec:
  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: web }
  minReplicas: 1
  maxReplicas: 10
`);
    const webCron = (downName: string) => `
apiVersion: autoscaling.karmada.io/v1alpha1
kind: CronFederatedHPA
metadata: { name: web-cron, namespace: default }
spec:
  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: web }
  rules:
  - { name: up, schedule: "0-59/4 * * * * *", targetReplicas: 5, successfulHistoryLimit: 1 }
  - { name: ${downName}, schedule: "2-59/4 * * * * *", targetReplicas: 2 }
  - { name: paused, schedule: "* * * * * *", targetReplicas: 9, suspend: true }
`;
    await apply(webCron('down'));
    await apply(`
apiVersion: autoscaling.karmada.io/v1alpha1
kind: CronFederatedHPA
metadata: { name: hpa-cron, namespace: default }
spec:
  scaleTargetRef: { apiVersion: autoscaling.karmada.io/v1alpha1, kind: FederatedHPA, name: web-hpa }
  rules:
  - { name: floor, schedule: "*/2 * * * * *", targetMinReplicas: 3 }
`);
    // Both rules ran at least twice, so the up rule's history was cut to its limit of 1.
    const h = await eventually(async () => {
      const hs = await histories('web-cron');
      const up = hs.find((x) => x.ruleName === 'up');
      const down = hs.find((x) => x.ruleName === 'down');
      return (down?.successfulExecutions?.length ?? 0) >= 2 && (await outcomes('web-cron')).filter((o) => o.ruleName === 'up').length >= 2 && up ? hs : undefined;
    }, 15_000, 'up and down executed twice');
    expect(h.map((x) => x.ruleName)).toEqual(['up', 'down', 'paused']);
    const [up, down, paused] = h as [History, History, History];
    expect(up.successfulExecutions).toHaveLength(1);
    expect(up.successfulExecutions![0]).toEqual({ scheduleTime: expect.any(String), executionTime: expect.any(String), appliedReplicas: 5 });
    expect(new Date(up.successfulExecutions![0]!.scheduleTime).getUTCSeconds() % 4).toBe(0);
    expect(down.successfulExecutions![0]!.appliedReplicas).toBe(2);
    expect(new Date(down.successfulExecutions![0]!.scheduleTime).getUTCSeconds() % 4).toBe(2);
    expect(Date.parse(up.nextExecutionTime!)).toBeGreaterThan(Date.parse(up.successfulExecutions![0]!.scheduleTime));
    // Suspended: no next time and never run.
    expect(paused).toEqual({ ruleName: 'paused' });
    expect((await outcomes('web-cron')).some((o) => o.ruleName === 'paused')).toBe(false);
    expect([2, 5]).toContain((await spec('deployment', 'web')).replicas);

    // The FederatedHPA's min was set, and only the min was recorded.
    const floor = await eventually(async () => (await histories('hpa-cron')).find((x) => x.successfulExecutions?.length), 10_000, 'the floor rule ran');
    expect(floor.successfulExecutions![0]).toEqual({ scheduleTime: expect.any(String), executionTime: expect.any(String), appliedMinReplicas: 3 });
    expect(await spec('fhpa', 'web-hpa')).toMatchObject({ minReplicas: 3, maxReplicas: 10 });

    // Renaming a rule discards its history; the new name starts its own.
    await apply(webCron('scale-down'));
    const renamed = await eventually(async () => {
      const hs = await histories('web-cron');
      return hs.some((x) => x.ruleName === 'scale-down' && x.successfulExecutions?.length) ? hs : undefined;
    }, 10_000, 'the renamed rule ran');
    expect(renamed.map((x) => x.ruleName)).toEqual(['up', 'paused', 'scale-down']);
  }, 45_000);

  it('with two replicas, a leader killed 1 s before a fire time and lost Redis keys: every schedule time once', async () => {
    const prefix = s.env.FLOTILLA_PREFIX!;
    await apply(deployment('ha', 1));
    const writes: number[] = [];
    const watch = await bus.objects.watch({ key: 'Deployment.default.ha', include: KvWatchInclude.UpdatesOnly });
    void (async () => {
      for await (const e of watch) if (e.operation === 'PUT') writes.push(e.revision);
    })();
    await apply(`
apiVersion: autoscaling.karmada.io/v1alpha1
kind: CronFederatedHPA
metadata: { name: ha-cron, namespace: default }
spec:
  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: ha }
  rules:
  - { name: up, schedule: "0-59/4 * * * * *", targetReplicas: 4 }
  - { name: down, schedule: "2-59/4 * * * * *", targetReplicas: 2 }
`);
    const second = await s.suite.startService('cron-scheduler');
    await eventually(async () => ((await outcomes('ha-cron')).length >= 1 ? true : undefined), 8000, 'a first execution');

    // Kill -9 the leader one second before a fire time (every even second).
    const holder = await redis.get(`${prefix}:leader:cron-scheduler`);
    const leader = s.suite.processes.find((p) => p.name === 'cron-scheduler' && p.child.exitCode === null && holder?.includes(`-${p.child.pid}-`));
    expect(leader, `lease holder ${holder}`).toBeDefined();
    const untilFire = 2000 - (Date.now() % 2000);
    await new Promise((r) => setTimeout(r, (untilFire + 1000) % 2000));
    await s.suite.kill(leader!);
    // The survivor takes over after the lease (2 s) and applies what came due meanwhile; then a replacement starts.
    await new Promise((r) => setTimeout(r, 4000));
    await s.suite.startService('cron-scheduler');

    // A Redis restart loses the queue and the leases; simulated by deleting the prefix's keys between two fire times.
    const keys = await redis.keys(`${prefix}:*`);
    expect(keys.some((k) => k.startsWith(`${prefix}:cron-scheduler:`))).toBe(true);
    await redis.del(...keys);
    await new Promise((r) => setTimeout(r, 6000));
    watch.stop();
    expect(second.child.exitCode).toBeNull();

    const all = await outcomes('ha-cron');
    const times = all.map((o) => Date.parse(o.scheduleTime)).sort((a, b) => a - b);
    expect(new Set(times).size).toBe(times.length);
    // Not one even second between the first and the last was lost.
    expect(times.at(-1)! - times[0]!).toBe((times.length - 1) * 2000);
    expect(times.length).toBeGreaterThanOrEqual(6);
    for (const o of all.filter((x) => x.type === 'CronRuleFailed')) expect(o.missed).toBe(true);
    // One target write per execution (it records the execution in the target's markers), none repeated.
    expect(writes.length).toBe(all.filter((o) => o.type === 'CronRuleExecuted').length);
  }, 45_000);
});
