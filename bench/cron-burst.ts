// The cron scheduler under a burst: N CronFederatedHPAs with two rules each, all due in the same second, executed
// end to end (target compare-and-set, events on the bus, state advanced, next timers armed) by the controller
// in-process, against 2N bare KV compare-and-set updates measured in the same run; then 100 rules spread over a
// minute for the lateness of the normal case. Scale down with BENCH_OBJECTS, BENCH_SPREAD_RULES, BENCH_SPREAD_S.
import { publishEvent, readEvents, type Bus } from '@flotilla/bus';
import { ObjectStore, type StoredObject } from '@flotilla/store';
import { REDIS_URL } from '@flotilla/testkit';
import { Redis } from 'ioredis';
import { CronController, type ExecutionReport } from '@flotilla/cron-scheduler';
import { fmt, percentile, report, rssMb, withBenchBus } from './support.js';

const OBJECTS = Number(process.env.BENCH_OBJECTS ?? 10_000);
const SPREAD_RULES = Number(process.env.BENCH_SPREAD_RULES ?? 100);
const SPREAD_S = Number(process.env.BENCH_SPREAD_S ?? 60);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const WINDOW = 500;

const silent = { info: () => undefined, warn: () => undefined, error: (o: object, m: string) => console.error(m, o) };

async function inWindows<T>(items: T[], fn: (t: T) => Promise<unknown>, window = WINDOW): Promise<void> {
  for (let i = 0; i < items.length; i += window) await Promise.all(items.slice(i, i + window).map(fn));
}

/** A 6-field schedule that fires once a day at `at`'s UTC second. */
const dailyAt = (at: Date) => `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} * * *`;

const deployment = (name: string): StoredObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'bench' },
  spec: { replicas: 1, selector: { matchLabels: { app: name } } },
});
const cron = (name: string, rules: Array<{ name: string; schedule: string; targetReplicas: number }>): StoredObject => ({
  apiVersion: 'autoscaling.karmada.io/v1alpha1',
  kind: 'CronFederatedHPA',
  metadata: { name: `${name}-cron`, namespace: 'bench' },
  spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name }, rules },
});

function stats(values: number[]): string {
  const s = [...values].sort((a, b) => a - b);
  return `p50 ${fmt(percentile(s, 50))} ms, p99 ${fmt(percentile(s, 99))} ms, max ${fmt(s.at(-1) ?? NaN)} ms (n=${s.length})`;
}

async function bareCas(bus: Bus, n: number, keysWanted: number, limit: number): Promise<number> {
  // Each in-flight writer owns its keys, so no update loses a compare-and-set to a sibling.
  const perWriter = Math.max(1, Math.ceil(keysWanted / limit));
  const keys = Array.from({ length: perWriter * limit }, (_, i) => `bare.${i}`);
  const revs = new Map<string, number>();
  await inWindows(keys, async (k) => revs.set(k, await bus.objects.put(k, new TextEncoder().encode('{"v":0}'))));
  const t = performance.now();
  let done = 0;
  await Promise.all(
    Array.from({ length: limit }, async (_, w) => {
      for (let c = 0; done < n; c++) {
        done++;
        const k = keys[w + limit * (c % perWriter)]!;
        revs.set(k, await bus.objects.update(k, new TextEncoder().encode(`{"v":${c}}`), revs.get(k)!));
      }
    }),
  );
  const ms = performance.now() - t;
  await inWindows(keys, (k) => bus.objects.purge(k).catch(() => undefined));
  return ms;
}

async function withController<T>(bus: Bus, redis: Redis, fn: (c: CronController, reports: ExecutionReport[]) => Promise<T>): Promise<T> {
  const reports: ExecutionReport[] = [];
  const c = new CronController({
    bus,
    redis,
    queuePrefix: bus.names.prefix,
    publish: (e) => publishEvent(bus, e),
    logger: silent,
    concurrency: CONCURRENCY,
    resyncMs: 3_600_000,
    onExecution: (r) => reports.push(r),
  });
  try {
    await c.start();
    return await fn(c, reports);
  } finally {
    await c.stop();
    const keys = await redis.keys(`${bus.names.prefix}:*`);
    for (let i = 0; i < keys.length; i += 1000) await redis.del(...keys.slice(i, i + 1000));
  }
}

/** Follows CronRuleExecuted events until `count` arrived; resolves with each one's (arrival − scheduleTime). */
async function follow(bus: Bus, count: number, signal: AbortSignal): Promise<{ e2e: number[]; exec: number[]; lastArrival: number }> {
  const e2e: number[] = [];
  const exec: number[] = [];
  let lastArrival = 0;
  for await (const d of readEvents(bus, { filter: { kind: 'CronFederatedHPA', type: 'CronRuleExecuted' }, follow: true, signal })) {
    const data = d.event.data as { scheduleTime: string; executionTime: string };
    lastArrival = Date.now();
    e2e.push(lastArrival - Date.parse(data.scheduleTime));
    exec.push(Date.parse(data.executionTime) - Date.parse(data.scheduleTime));
    if (e2e.length >= count) break;
  }
  return { e2e, exec, lastArrival };
}

const sleepUntil = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms - Date.now())));

await withBenchBus('cron', async (bus) => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const store = new ObjectStore(bus);
  try {
    // 1. the baseline, side by side: bare compare-and-set updates at the controller's concurrency, and one by one
    const bareMs = await bareCas(bus, 2 * OBJECTS, OBJECTS, CONCURRENCY);
    const bareSeqMs = await bareCas(bus, Math.min(2 * OBJECTS, 5000), Math.min(OBJECTS, 2500), 1);

    // 2. the burst: every object's two rules at the same second
    const rssBefore = rssMb();
    const names = Array.from({ length: OBJECTS }, (_, i) => `web-${i}`);
    let t = performance.now();
    await inWindows(names, (n) => store.apply(deployment(n)));
    const setupStart = Date.now();
    // Far enough ahead for creating the objects and arming 2N timers (about 1.5 ms per object here).
    const fireAt = new Date(Math.ceil((setupStart + 10_000 + OBJECTS * 2.5) / 1000) * 1000);
    await inWindows(names, (n) =>
      store.apply(cron(n, [{ name: 'a', schedule: dailyAt(fireAt), targetReplicas: 3 }, { name: 'b', schedule: dailyAt(fireAt), targetReplicas: 4 }])),
    );
    const createMs = performance.now() - t;
    await withController(bus, redis, async (c, reports) => {
      t = performance.now();
      await c.idle();
      const armMs = performance.now() - t;
      if (Date.now() >= fireAt.getTime()) throw new Error('set-up ran past the fire time; raise the lead time');
      const rssArmed = rssMb();
      const ac = new AbortController();
      const followed = follow(bus, 2 * OBJECTS, ac.signal);
      let rssPeak = rssArmed;
      const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb())), 100);
      await sleepUntil(fireAt.getTime());
      const res = await followed;
      clearInterval(sampler);
      ac.abort();
      const burstMs = res.lastArrival - fireAt.getTime();
      report(`cron burst: ${OBJECTS} CronFederatedHPAs x 2 rules due at the same second (controller in-process, concurrency ${CONCURRENCY})`, [
        ['set-up', `objects ${fmt(createMs / 1000, 2)} s, first plan + ${2 * OBJECTS} BullMQ timers armed ${fmt(armMs / 1000, 2)} s`],
        ['lateness, executionTime - scheduleTime', stats(res.exec)],
        ['lateness, event in the stream', stats(res.e2e)],
        ['burst', `${2 * OBJECTS} executions in ${fmt(burstMs)} ms = ${fmt((2 * OBJECTS) / (burstMs / 1000))} executions/s`],
        ['in-process reports', `${reports.length} executions, ${reports.filter((r) => !r.ok).length} failed`],
        [`bare KV CAS x ${2 * OBJECTS} (${CONCURRENCY} in flight)`, `${fmt(bareMs)} ms = ${fmt((2 * OBJECTS) / (bareMs / 1000))} ops/s`],
        ['bare KV CAS one by one', `${fmt((Math.min(2 * OBJECTS, 5000) / bareSeqMs) * 1000)} ops/s (would take ${fmt((bareSeqMs * 2 * OBJECTS) / Math.min(2 * OBJECTS, 5000))} ms for ${2 * OBJECTS})`],
        ['ratio burst / bare (same concurrency)', `${(burstMs / bareMs).toFixed(2)}x  (target <= 1.5x)`],
        ['resident memory', `before ${fmt(rssBefore)} MB, armed ${fmt(rssArmed)} MB, peak ${fmt(rssPeak)} MB`],
      ]);
    });

    // 3. spread: SPREAD_RULES rules over SPREAD_S seconds
    const spreadStart = Math.ceil((Date.now() + 5000) / 1000) * 1000;
    const spreadNames = Array.from({ length: SPREAD_RULES }, (_, i) => `spread-${i}`);
    await inWindows(spreadNames, (n) => store.apply(deployment(n)));
    await inWindows(spreadNames, (n) => {
      const i = Number(n.slice('spread-'.length));
      const at = new Date(spreadStart + Math.floor((i * SPREAD_S) / SPREAD_RULES) * 1000);
      return store.apply(cron(n, [{ name: 'only', schedule: dailyAt(at), targetReplicas: 2 }]));
    });
    await withController(bus, redis, async (c, reports) => {
      await c.idle();
      const before = reports.length;
      await sleepUntil(spreadStart + SPREAD_S * 1000 + 1000);
      const mine = reports.slice(before).map((r) => r.executionTime.getTime() - r.scheduleTime.getTime());
      report(`cron spread: ${SPREAD_RULES} rules over ${SPREAD_S} s`, [['lateness, executionTime - scheduleTime', `${stats(mine)}  (target p99 <= 10 ms)`]]);
    });
  } finally {
    await redis.quit();
  }
});

// BullMQ's and the NATS client's sockets can outlive their close by a while; the numbers are printed, so leave.
process.exit(0);
