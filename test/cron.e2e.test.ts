// End to end: the built services as processes on a fresh prefix, driven by the real CLI. 6-field schedules every
// 2-6 s keep it short. The services share a redis-server of this file's own, which the reliability test restarts.
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { join } from 'node:path';
import { connectBus, eventTypeOf, KvWatchInclude, readEvents, type Bus } from '@flotilla/bus';
import { eventually, freeTcpPort, PrivateRedis } from '@flotilla/testkit';
import { Redis } from 'ioredis';
import { flotilla } from './support/cli.js';
import { ROOT, startSuite, type RunningSuite } from './support/suite.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let privateRedis: PrivateRedis | undefined;
let s: RunningSuite;
let bus: Bus;
let redis: Redis;
const killPrivateRedis = () => privateRedis?.killNow();
/** Why the set-up failed: every test then fails with it (a failing beforeAll would only mark them skipped). */
let setupError: unknown;

beforeAll(async () => {
  try {
    process.once('exit', killPrivateRedis);
    privateRedis = new PrivateRedis(await freeTcpPort());
    await privateRedis.start();
    s = await startSuite(['gateway', 'status-writer', 'member-agent', 'affinity-scheduler', 'cron-scheduler'], {
      REDIS_URL: privateRedis.url,
      SIM_TICK_MS: '200',
      RESYNC_MS: '2000',
    });
    bus = await connectBus({ url: s.env.NATS_URL!, prefix: s.env.FLOTILLA_PREFIX! });
    redis = new Redis(privateRedis.url);
    redis.on('error', () => undefined); // the reliability test restarts the server under it; ioredis reconnects
  } catch (err) {
    setupError = err;
  }
}, 60_000);

function setUp(): void {
  if (setupError) throw setupError;
  onTestFailed(() => {
    const output = s?.logs.filter((l) => !/Unhandled error event|at TCPConnectWrap/.test(l));
    console.log(`the services' last output:\n${output?.slice(-40).join('\n')}`);
  });
}

/** The cron-scheduler replicas' leadership history, one line per transition, for failure messages. */
function cronLeadership(): string {
  return s.logs
    .filter((l) => l.startsWith('[cron-scheduler') && /elected leader|no longer leader|scheduling cron rules/.test(l))
    .map((l) => {
      const label = l.slice(0, l.indexOf(']') + 1);
      const e = JSON.parse(l.slice(l.indexOf('{'))) as { time: string; msg: string; reason?: string };
      return `${e.time} ${label} ${e.msg}${e.reason ? ` (${e.reason})` : ''}`;
    })
    .join('\n');
}

afterAll(async () => {
  try {
    await bus?.close();
    // Stops the services (while their Redis is still there) and removes the prefix's streams and buckets; the
    // private Redis holds the queue, the leases and their counters, and goes with its process.
    await s?.stop();
  } finally {
    redis?.disconnect();
    await privateRedis?.dispose();
    process.off('exit', killPrivateRedis);
  }
}, 60_000);

async function apply(yaml: string): Promise<void> {
  const r = await flotilla(s.env, ['apply', '-f', '-'], yaml);
  expect(r.code, r.err).toBe(0);
}

interface History {
  ruleName: string;
  nextExecutionTime?: string;
  successfulExecutions?: Array<{
    scheduleTime: string;
    executionTime: string;
    appliedReplicas?: number;
    appliedMinReplicas?: number;
  }>;
  failedExecutions?: Array<{ scheduleTime: string; executionTime: string; message: string }>;
}

async function histories(name: string): Promise<History[]> {
  const r = await flotilla(s.env, ['get', 'cronfhpa', name, '-n', 'default', '-o', 'json']);
  expect(r.code, r.err).toBe(0);
  const o = JSON.parse(r.out) as { status?: { executionHistories?: History[] } };
  return o.status?.executionHistories ?? [];
}

async function getJson<T>(kind: string, name: string): Promise<T> {
  const r = await flotilla(s.env, ['get', kind, name, '-n', 'default', '-o', 'json']);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out) as T;
}

async function spec(kind: string, name: string): Promise<Record<string, unknown>> {
  return (await getJson<{ spec: Record<string, unknown> }>(kind, name)).spec;
}

interface Outcome {
  type: string;
  ruleName: string;
  scheduleTime: string;
  missed?: boolean;
}

async function outcomes(name: string): Promise<Outcome[]> {
  const out: Outcome[] = [];
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
    spec: { containers: [{ name: c, image: nginx, resources: { requests: { cpu: 500m, memory: 512Mi } } }] }
`;

interface Binding {
  spec: { replicas?: number; clusters?: Array<{ name: string; replicas?: number }> };
  status?: { conditions?: Array<{ type: string; status: string }> };
}

/** Resolves once `name` has one more outcome (an execution or a missed time) than when called. */
async function nextExecution(name: string, what: string): Promise<void> {
  const before = (await outcomes(name)).length;
  await eventually(async () => ((await outcomes(name)).length > before ? true : undefined), 10_000, what);
}

/** The live cron-scheduler process that holds the lease, if any (a killed one keeps it until it runs out). */
async function cronLeaseHolder(prefix: string): Promise<RunningSuite['suite']['processes'][number] | undefined> {
  const holder = await redis.get(`${prefix}:leader:cron-scheduler`);
  return s.suite.processes.find(
    (p) =>
      p.name === 'cron-scheduler' &&
      p.child.exitCode === null &&
      p.child.signalCode === null &&
      holder?.includes(`-${p.child.pid}-`),
  );
}

const assigned = (b: Binding) => (b.spec.clusters ?? []).reduce((n, c) => n + (c.replicas ?? 0), 0);
const ms = (t: string) => Date.parse(t);
const byTimeDesc = (a: string, b: string) => ms(b) - ms(a);

describe('cron scheduler end to end', () => {
  it('scales a Deployment up and down, sets a FederatedHPA min, honours suspend, renames and history limits', async () => {
    setUp();
    await apply(deployment('web', 1));
    // The FederatedHPA scales a Deployment of its own: a CronFederatedHPA aimed at a workload that a FederatedHPA
    // also scales is refused at admission (two owners of spec.replicas), so the rules below reach it through the HPA.
    await apply(deployment('web-autoscaled', 1));
    await apply(`
apiVersion: autoscaling.karmada.io/v1alpha1
kind: FederatedHPA
metadata: { name: web-hpa, namespace: default }
spec:
  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: web-autoscaled }
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
    const h = await eventually(
      async () => {
        const hs = await histories('web-cron');
        const up = hs.find((x) => x.ruleName === 'up');
        const down = hs.find((x) => x.ruleName === 'down');
        return (down?.successfulExecutions?.length ?? 0) >= 2 &&
          (await outcomes('web-cron')).filter((o) => o.ruleName === 'up').length >= 2 &&
          up
          ? hs
          : undefined;
      },
      20_000,
      'up and down executed twice',
    );
    expect(h.map((x) => x.ruleName)).toEqual(['up', 'down', 'paused']);
    const [up, down, paused] = h as [History, History, History];
    expect(up.successfulExecutions).toHaveLength(1);
    expect(up.successfulExecutions![0]).toEqual({
      scheduleTime: expect.any(String),
      executionTime: expect.any(String),
      appliedReplicas: 5,
    });
    expect(new Date(up.successfulExecutions![0]!.scheduleTime).getUTCSeconds() % 4).toBe(0);
    expect(down.successfulExecutions![0]!.appliedReplicas).toBe(2);
    expect(new Date(down.successfulExecutions![0]!.scheduleTime).getUTCSeconds() % 4).toBe(2);
    expect(Date.parse(up.nextExecutionTime!)).toBeGreaterThan(Date.parse(up.successfulExecutions![0]!.scheduleTime));
    // Suspended: no next time and never run.
    expect(paused).toEqual({ ruleName: 'paused' });
    expect((await outcomes('web-cron')).some((o) => o.ruleName === 'paused')).toBe(false);
    expect([2, 5]).toContain((await spec('deployment', 'web')).replicas);

    // The FederatedHPA's min was set, and only the min was recorded.
    const floor = await eventually(
      async () => (await histories('hpa-cron')).find((x) => x.successfulExecutions?.length),
      10_000,
      'the floor rule ran',
    );
    expect(floor.successfulExecutions![0]).toEqual({
      scheduleTime: expect.any(String),
      executionTime: expect.any(String),
      appliedMinReplicas: 3,
    });
    expect(await spec('fhpa', 'web-hpa')).toMatchObject({ minReplicas: 3, maxReplicas: 10 });

    // Renaming a rule discards its history; the new name starts its own.
    await apply(webCron('scale-down'));
    const renamed = await eventually(
      async () => {
        const hs = await histories('web-cron');
        return hs.some((x) => x.ruleName === 'scale-down' && x.successfulExecutions?.length) ? hs : undefined;
      },
      10_000,
      'the renamed rule ran',
    );
    expect(renamed.map((x) => x.ruleName)).toEqual(['up', 'paused', 'scale-down']);

    // Done with these: the tests below have the (2-core) machine to themselves.
    for (const name of ['web-cron', 'hpa-cron'])
      expect((await flotilla(s.env, ['delete', 'cronfhpa', name, '-n', 'default'])).code).toBe(0);
  }, 45_000);

  it('a cron-scaled Deployment: the affinity scheduler applies each value to its binding in Steady mode', async () => {
    setUp();
    const clusters = await flotilla(s.env, ['apply', '-f', join(ROOT, 'examples', '00-clusters.yaml')]);
    expect(clusters.code, clusters.err).toBe(0);
    const members = ['member1', 'member2', 'member3'];
    for (const c of members) {
      const w = await flotilla(s.env, ['wait', '--for=condition=Ready', `cluster/${c}`, '--timeout', '30s']);
      expect(w.out.trim(), w.err).toBe(`cluster/${c} condition met`);
    }
    await apply(`${deployment('shop', 1)}
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: { name: shop, namespace: default }
spec:
  resourceSelectors: [{ apiVersion: apps/v1, kind: Deployment, name: shop }]
  placement:
    clusterAffinity: { clusterNames: [member1, member2, member3] }
    replicaScheduling: { replicaSchedulingType: Divided, replicaDivisionPreference: Weighted, weightPreference: { dynamicWeight: AvailableReplicas } }
`);
    const rb = () => getJson<Binding>('rb', 'shop-deployment');
    const scheduled = await eventually(
      async () => {
        const b = await rb();
        return b.spec.replicas === 1 && assigned(b) === 1 ? b : undefined;
      },
      20_000,
      'shop scheduled with its 1 replica',
    );

    // Every version of the binding from here on, to check how it got from one value to the next.
    const versions: Binding[] = [scheduled];
    const watch = await bus.objects.watch({
      key: 'ResourceBinding.default.shop-deployment',
      include: KvWatchInclude.UpdatesOnly,
    });
    void (async () => {
      for await (const e of watch) if (e.operation === 'PUT') versions.push(e.json<Binding>());
    })();
    const shopCron = (suspend: boolean) => `
apiVersion: autoscaling.karmada.io/v1alpha1
kind: CronFederatedHPA
metadata: { name: shop-cron, namespace: default }
spec:
  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: shop }
  rules:
  - { name: up, schedule: "0-59/6 * * * * *", targetReplicas: 4, suspend: ${suspend} }
  - { name: down, schedule: "3-59/6 * * * * *", targetReplicas: 2, suspend: ${suspend} }
`;
    await apply(shopCron(false));
    // Each value the rules set reaches the binding's replicas, and the clusters' replicas add up to it. A value
    // holds for 3 s; one missed by the polling comes round again 6 s later.
    for (const want of [4, 2]) {
      const b = await eventually(
        async () => {
          const b = await rb();
          return b.spec.replicas === want && assigned(b) === want ? b : undefined;
        },
        25_000,
        `the binding at ${want} replicas, all of them assigned`,
      );
      for (const c of b.spec.clusters!) expect(members).toContain(c.name);
    }

    // Suspended, the rules stop; the binding settles on the Deployment's last value.
    await apply(shopCron(true));
    await eventually(
      async () => {
        const hs = await histories('shop-cron');
        return hs.length === 2 && hs.every((x) => x.nextExecutionTime === undefined) ? hs : undefined;
      },
      15_000,
      'both rules suspended',
    );
    const replicas = (await spec('deployment', 'shop')).replicas as number;
    expect([2, 4]).toContain(replicas);
    const last = await eventually(
      async () => {
        const b = await rb();
        return b.spec.replicas === replicas && assigned(b) === replicas ? b : undefined;
      },
      20_000,
      `the binding settled at the Deployment's ${replicas}`,
    );
    expect(last.status?.conditions?.find((c) => c.type === 'Scheduled')).toMatchObject({ status: 'True' });
    watch.stop();

    // Steady mode: between two fully assigned versions, a scale-up only adds replicas to each cluster and a scale-down
    // only removes them (Fresh would divide the new total afresh).
    const settled = versions.filter((v) => v.spec.replicas !== undefined && assigned(v) === v.spec.replicas);
    const steps = settled.filter((v, i) => i === 0 || v.spec.replicas !== settled[i - 1]!.spec.replicas);
    expect(steps.map((v) => v.spec.replicas)).toContain(4);
    expect(steps.map((v) => v.spec.replicas)).toContain(2);
    const per = (v: Binding) => new Map((v.spec.clusters ?? []).map((c) => [c.name, c.replicas ?? 0]));
    for (let i = 1; i < steps.length; i++) {
      const [a, b] = [per(steps[i - 1]!), per(steps[i]!)];
      const names = new Set([...a.keys(), ...b.keys()]);
      const up = steps[i]!.spec.replicas! > steps[i - 1]!.spec.replicas!;
      for (const n of names) {
        if (up)
          expect(
            b.get(n) ?? 0,
            `${n} on scale-up ${JSON.stringify([...a])} -> ${JSON.stringify([...b])}`,
          ).toBeGreaterThanOrEqual(a.get(n) ?? 0);
        else
          expect(
            b.get(n) ?? 0,
            `${n} on scale-down ${JSON.stringify([...a])} -> ${JSON.stringify([...b])}`,
          ).toBeLessThanOrEqual(a.get(n) ?? 0);
      }
    }
    // And status recorded what each rule applied.
    const hs = await histories('shop-cron');
    expect(hs.find((x) => x.ruleName === 'up')?.successfulExecutions?.[0]?.appliedReplicas).toBe(4);
    expect(hs.find((x) => x.ruleName === 'down')?.successfulExecutions?.[0]?.appliedReplicas).toBe(2);
  }, 75_000);

  it('with two replicas, a leader killed right after an execution and a real Redis restart: every schedule time once', async () => {
    setUp();
    const prefix = s.env.FLOTILLA_PREFIX!;
    const values: Record<string, number> = { up: 4, down: 2 };
    await apply(deployment('ha', 1));
    // Every write of the target, with its execution markers (cron uid -> rule -> latest schedule time applied).
    const writes: Array<{ replicas: number; markers: Record<string, Record<string, string>> }> = [];
    const watch = await bus.objects.watch({ key: 'Deployment.default.ha', include: KvWatchInclude.UpdatesOnly });
    void (async () => {
      for await (const e of watch) {
        if (e.operation !== 'PUT') continue;
        const o = e.json<{ metadata: { annotations?: Record<string, string> }; spec: { replicas: number } }>();
        writes.push({
          replicas: o.spec.replicas,
          markers: JSON.parse(o.metadata.annotations?.['cron.flotilla.io/executions'] ?? '{}') as Record<
            string,
            Record<string, string>
          >,
        });
      }
    })();
    // History limits at their maximum (32), above the executions this test sees, so status keeps every one.
    const haCron = (suspend: boolean) => `
apiVersion: autoscaling.karmada.io/v1alpha1
kind: CronFederatedHPA
metadata: { name: ha-cron, namespace: default }
spec:
  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: ha }
  rules:
  - { name: up, schedule: "0-59/4 * * * * *", targetReplicas: 4, successfulHistoryLimit: 32, failedHistoryLimit: 32, suspend: ${suspend} }
  - { name: down, schedule: "2-59/4 * * * * *", targetReplicas: 2, successfulHistoryLimit: 32, failedHistoryLimit: 32, suspend: ${suspend} }
`;
    await apply(haCron(false));
    const second = await s.suite.startService('cron-scheduler');
    await eventually(
      async () => ((await outcomes('ha-cron')).length >= 1 ? true : undefined),
      10_000,
      'a first execution',
    );

    // Kill -9 the leader as soon as it has applied a schedule time: the next one the controller computed (2 s on)
    // comes due while the dead leader's lease (2 s) runs out. Driven by the executions, not by the wall clock's
    // second boundaries, so a loaded machine cannot make the kill land on the wrong side of a fire time.
    const leader = await cronLeaseHolder(prefix);
    expect(leader, `lease holder ${await redis.get(`${prefix}:leader:cron-scheduler`)}`).toBeDefined();
    await nextExecution('ha-cron', 'an execution to kill the leader after');
    await s.suite.kill(leader!);
    // The survivor takes over once the lease has run out and applies what came due meanwhile; then a replacement
    // starts.
    await eventually(
      async () => {
        const holder = await cronLeaseHolder(prefix);
        return holder && holder !== leader ? true : undefined;
      },
      15_000,
      'the surviving replica holding the lease',
    );
    await s.suite.startService('cron-scheduler');

    // A real Redis restart between two fire times: the queue with its delayed jobs, the leases and the fencing
    // counters are lost, and every connection drops.
    await eventually(
      async () => ((await redis.zcard(`${prefix}:cron-scheduler:delayed`)) > 0 ? true : undefined),
      5000,
      'a delayed wake-up before the restart',
    );
    const runId = /run_id:(\w+)/.exec(await redis.info('server'))?.[1];
    expect(runId).toBeDefined();
    // Down right after an execution for about a second: long enough for every client to notice (failed reconnects,
    // lease renewals timing out). A fire time that comes due while it is down is applied after it (catch-up) or
    // recorded as missed; either way each schedule time is an outcome once, which is what the end checks.
    await nextExecution('ha-cron', 'an execution before the Redis restart');
    const downAt = Date.now();
    await privateRedis!.stop('SIGKILL');
    await sleep(1000 - (Date.now() - downAt));
    await privateRedis!.start();
    const upAt = Date.now();
    console.log(
      `private Redis killed at ${new Date(downAt).toISOString()} and answering again ${upAt - downAt} ms later`,
    );
    expect(/run_id:(\w+)/.exec(await redis.info('server'))?.[1]).not.toBe(runId);
    // On a timeout, say who holds the lease and what each replica did.
    const explain = async (err: Error): Promise<never> => {
      throw new Error(
        `${err.message}\nlease holder: ${await redis.get(`${prefix}:leader:cron-scheduler`)}\ncron-scheduler leadership:\n${cronLeadership()}`,
      );
    };
    // A live replica takes the lease again and rebuilds the timers in the new Redis (BullMQ's delayed set of the queue).
    await eventually(
      async () =>
        (await cronLeaseHolder(prefix)) && (await redis.zcard(`${prefix}:cron-scheduler:delayed`)) > 0
          ? true
          : undefined,
      15_000,
      'a cron-scheduler leader and a delayed wake-up in the restarted Redis',
    ).catch(explain);
    // And they fire: three more schedule times applied after the restart, and the BullMQ worker, reconnected, has
    // processed wake-ups again (completed jobs are kept a day, so the set only holds the new server's).
    await eventually(
      async () =>
        (await outcomes('ha-cron')).filter((o) => o.type === 'CronRuleExecuted' && ms(o.scheduleTime) > upAt).length >=
          3 && (await redis.zcard(`${prefix}:cron-scheduler:completed`)) >= 2
          ? true
          : undefined,
      20_000,
      'executions and processed wake-up jobs after the Redis restart',
    ).catch(explain);

    // Suspend both rules, so what follows compares a finished record.
    await apply(haCron(true));
    await eventually(
      async () => {
        const hs = await histories('ha-cron');
        return hs.length === 2 && hs.every((x) => x.nextExecutionTime === undefined) ? hs : undefined;
      },
      15_000,
      'both rules suspended',
    );
    const all = await outcomes('ha-cron');
    const executed = all.filter((o) => o.type === 'CronRuleExecuted');
    const failed = all.filter((o) => o.type === 'CronRuleFailed');
    // The watch has seen every target write of those executions.
    await eventually(
      async () => (writes.length >= executed.length ? true : undefined),
      10_000,
      'the target writes',
    ).catch(() => undefined);
    watch.stop();

    // No service fell over with its Redis: every process but the killed leader still runs.
    for (const p of s.suite.processes.filter((x) => x !== leader))
      expect([p.child.exitCode, p.child.signalCode], `${p.name}#${p.replica}`).toEqual([null, null]);
    expect(second.child.exitCode).toBeNull();

    // The event stream: each schedule time once, not one even second lost between the first and the last.
    const times = all.map((o) => ms(o.scheduleTime)).sort((a, b) => a - b);
    expect(new Set(times).size).toBe(times.length);
    expect(times.at(-1)! - times[0]!).toBe((times.length - 1) * 2000);
    expect(times.length).toBeGreaterThanOrEqual(6);
    expect(times.at(-1)!).toBeGreaterThan(upAt);
    for (const o of failed) expect(o.missed).toBe(true);
    for (const o of all) expect(o.ruleName).toBe(new Date(o.scheduleTime).getUTCSeconds() % 4 === 0 ? 'up' : 'down');

    // The target's writes: one per execution, each recording exactly that (rule, schedule time) in the markers and
    // setting that rule's value; none repeated.
    expect(writes.length).toBe(executed.length);
    const written: Array<{ ruleName: string; scheduleTime: number }> = [];
    let before: Record<string, string> = {};
    for (const w of writes) {
      const uids = Object.keys(w.markers);
      expect(uids).toHaveLength(1);
      const now = w.markers[uids[0]!]!;
      const changed = Object.keys(now).filter((r) => now[r] !== before[r]);
      expect(changed, JSON.stringify({ before, now })).toHaveLength(1);
      const ruleName = changed[0]!;
      expect(w.replicas).toBe(values[ruleName]);
      if (before[ruleName]) expect(ms(now[ruleName]!)).toBeGreaterThan(ms(before[ruleName]));
      written.push({ ruleName, scheduleTime: ms(now[ruleName]!) });
      before = now;
    }
    const key = (x: { ruleName: string; scheduleTime: number | string }) =>
      `${x.ruleName}@${new Date(x.scheduleTime).toISOString()}`;
    expect(written.map(key).sort()).toEqual(executed.map(key).sort());

    // Status (folded by the status writer): per rule, newest first, exactly the outcomes of the event stream (the
    // limits of 32 keep them all), each schedule time once across the rules, with the value applied.
    expect(Math.max(...['up', 'down'].map((r) => executed.filter((o) => o.ruleName === r).length))).toBeLessThanOrEqual(
      32,
    );
    const expected = (list: Outcome[], rule: string) =>
      list
        .filter((o) => o.ruleName === rule)
        .map((o) => o.scheduleTime)
        .sort(byTimeDesc)
        .map(ms);
    const statusMatches = (hs: History[]) =>
      ['up', 'down'].every((rule) => {
        const h = hs.find((x) => x.ruleName === rule);
        const ok = (h?.successfulExecutions ?? []).map((e) => ms(e.scheduleTime));
        const ko = (h?.failedExecutions ?? []).map((e) => ms(e.scheduleTime));
        return (
          JSON.stringify(ok) === JSON.stringify(expected(executed, rule)) &&
          JSON.stringify(ko) === JSON.stringify(expected(failed, rule))
        );
      });
    const hs =
      (await eventually(
        async () => {
          const hs = await histories('ha-cron');
          return statusMatches(hs) ? hs : undefined;
        },
        15_000,
        'status to show every outcome',
      ).catch(() => undefined)) ?? (await histories('ha-cron'));
    expect(hs.map((x) => x.ruleName)).toEqual(['up', 'down']);
    const inStatus: number[] = [];
    for (const h of hs) {
      const ok = h.successfulExecutions ?? [];
      const ko = h.failedExecutions ?? [];
      expect(
        ok.map((e) => ms(e.scheduleTime)),
        `${h.ruleName} successes`,
      ).toEqual(expected(executed, h.ruleName));
      expect(
        ko.map((e) => ms(e.scheduleTime)),
        `${h.ruleName} failures`,
      ).toEqual(expected(failed, h.ruleName));
      for (const e of ok) expect(e.appliedReplicas).toBe(values[h.ruleName]);
      for (const e of ko) expect(e.message).toMatch(/miss/i);
      inStatus.push(...ok.map((e) => ms(e.scheduleTime)), ...ko.map((e) => ms(e.scheduleTime)));
    }
    expect(new Set(inStatus).size).toBe(inStatus.length);
    expect(inStatus.sort((a, b) => a - b)).toEqual(times);
  }, 75_000);
});
