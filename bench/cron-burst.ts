// The cron scheduler under a burst: N CronFederatedHPAs with two rules each, all due in the same second, executed
// end to end (target compare-and-set, events on the bus, state advanced, next timers armed) by the controller
// in-process, against 2N bare KV compare-and-set updates measured in the same run; then 100 rules spread over a
// minute for the lateness of the normal case. Scale down with BENCH_OBJECTS, BENCH_SPREAD_RULES, BENCH_SPREAD_S.
// After the burst, the same JetStream writes without the controller show how much of the ratio is the writes
// themselves: those the controller makes, and the least the product allows (a target write and a domain event per
// execution).
//
// The burst lasts from the fire time until the controller has reported every execution and is idle again, so every
// state write is in it. The events' lateness in the stream is read after the burst, from the time the stream stored
// each one (the server's clock, the same host's here): a consumer reading 2N events during the burst would take the
// controller's CPU.
import { encodeJson, eventFilter, publishEvent, type Bus, type CloudEvent } from '@flotilla/bus';
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
const cron = (
  name: string,
  rules: Array<{ name: string; schedule: string; targetReplicas: number }>,
): StoredObject => ({
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

/**
 * The burst's JetStream writes without the controller, per object at CONCURRENCY objects in flight, on the burst's
 * own Deployments: `minimal` is the least the product allows (one compare-and-set of the target at a revision
 * already known, one domain event per execution, no stored state); otherwise what the controller writes (read the
 * target, compare-and-set it, one event per rule, compare-and-set the rule state).
 */
async function writesOnlyMs(bus: Bus, names: string[], minimal: boolean, round: number): Promise<number> {
  const key = (n: string) => `Deployment.bench.${n}`;
  const stateKey = (n: string) => `BenchFloorState._.${n}`;
  const revisions = new Map<string, number>();
  const stateRevisions = new Map<string, number>();
  await inWindows(names, async (n) => {
    revisions.set(n, (await bus.objects.get(key(n)))!.revision);
    if (!minimal) stateRevisions.set(n, await bus.objects.put(stateKey(n), encodeJson({ objectKey: n, rules: [] })));
  });
  const event = (n: string, rule: string) =>
    encodeJson({
      specversion: '1.0',
      id: `floor.${round}.${n}.${rule}`,
      source: 'bench',
      type: 'BenchFloor',
      time: new Date().toISOString(),
      data: { ruleName: rule, scheduleTime: new Date().toISOString(), appliedReplicas: 3 },
    });
  const subject = (n: string) => `${bus.names.eventsRoot}.CronFederatedHPA.bench.${n}-cron.BenchFloor`;
  const t = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < names.length) {
        const n = names[next++]!;
        const revision = minimal ? revisions.get(n)! : (await bus.objects.get(key(n)))!.revision;
        await bus.objects.update(key(n), encodeJson({ ...deployment(n), spec: { replicas: 4 + round } }), revision);
        await Promise.all(
          ['a', 'b'].map((rule) =>
            bus.js.publish(subject(n), event(n, rule), { msgID: `floor.${round}.${n}.${rule}` }),
          ),
        );
        if (!minimal)
          await bus.objects.update(stateKey(n), encodeJson({ objectKey: n, rules: [round] }), stateRevisions.get(n)!);
      }
    }),
  );
  const ms = performance.now() - t;
  if (!minimal) await inWindows(names, (n) => bus.objects.purge(stateKey(n)));
  return ms;
}

/** The controller's execution reports, and a wait for the n-th. */
class Reports {
  readonly all: ExecutionReport[] = [];
  private waiter?: { n: number; resolve: () => void };

  readonly add = (r: ExecutionReport): void => {
    this.all.push(r);
    if (this.waiter && this.all.length >= this.waiter.n) this.waiter.resolve();
  };

  reached(n: number): Promise<void> {
    return this.all.length >= n ? Promise.resolve() : new Promise((resolve) => (this.waiter = { n, resolve }));
  }
}

async function withController<T>(
  bus: Bus,
  redis: Redis,
  fn: (c: CronController, reports: Reports) => Promise<T>,
): Promise<T> {
  const reports = new Reports();
  const c = new CronController({
    bus,
    redis,
    queuePrefix: bus.names.prefix,
    publish: (e) => publishEvent(bus, e),
    logger: silent,
    concurrency: CONCURRENCY,
    resyncMs: 3_600_000,
    onExecution: reports.add,
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

/** The first `count` CronRuleExecuted events in the stream: each one's (time the stream stored it − scheduleTime). */
async function storedLateness(bus: Bus, count: number): Promise<number[]> {
  const filter = eventFilter(bus.names.eventsRoot, { kind: 'CronFederatedHPA', type: 'CronRuleExecuted' });
  const consumer = await bus.js.consumers.get(bus.names.eventsStream, { filter_subjects: filter });
  const out: number[] = [];
  while (out.length < count) {
    const before = out.length;
    for await (const m of await consumer.fetch({ max_messages: Math.min(10_000, count - out.length), expires: 2000 })) {
      const { scheduleTime } = m.json<CloudEvent<{ scheduleTime: string }>>().data;
      out.push(m.time.getTime() - Date.parse(scheduleTime));
    }
    if (out.length === before) throw new Error(`the stream holds ${out.length} of ${count} executions`);
  }
  return out;
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
    // Far enough ahead for creating the objects and planning them (about 1.5 ms per object here).
    const fireAt = new Date(Math.ceil((setupStart + 10_000 + OBJECTS * 2.5) / 1000) * 1000);
    await inWindows(names, (n) =>
      store.apply(
        cron(n, [
          { name: 'a', schedule: dailyAt(fireAt), targetReplicas: 3 },
          { name: 'b', schedule: dailyAt(fireAt), targetReplicas: 4 },
        ]),
      ),
    );
    const createMs = performance.now() - t;
    await withController(bus, redis, async (c, reports) => {
      t = performance.now();
      await c.idle();
      const armMs = performance.now() - t;
      if (Date.now() >= fireAt.getTime()) throw new Error('set-up ran past the fire time; raise the lead time');
      const rssArmed = rssMb();
      let rssPeak = rssArmed;
      const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb())), 100);
      await reports.reached(2 * OBJECTS);
      await c.idle();
      const burstMs = Date.now() - fireAt.getTime();
      clearInterval(sampler);
      const exec = reports.all.map((r) => r.executionTime.getTime() - r.scheduleTime.getTime());
      const stored = await storedLateness(bus, 2 * OBJECTS);
      const floorMs = await writesOnlyMs(bus, names, false, 0);
      const minimalMs = await writesOnlyMs(bus, names, true, 1);
      report(
        `cron burst: ${OBJECTS} CronFederatedHPAs x 2 rules due at the same second (controller in-process, concurrency ${CONCURRENCY})`,
        [
          ['set-up', `objects ${fmt(createMs / 1000, 2)} s, first plan and timers ${fmt(armMs / 1000, 2)} s`],
          ['lateness, executionTime - scheduleTime', stats(exec)],
          ['lateness, event stored in the stream', stats(stored)],
          [
            'burst, until every state is written',
            `${2 * OBJECTS} executions in ${fmt(burstMs)} ms = ${fmt((2 * OBJECTS) / (burstMs / 1000))} executions/s`,
          ],
          ['in-process reports', `${reports.all.length} executions, ${reports.all.filter((r) => !r.ok).length} failed`],
          [
            `bare KV CAS x ${2 * OBJECTS} (${CONCURRENCY} in flight)`,
            `${fmt(bareMs)} ms = ${fmt((2 * OBJECTS) / (bareMs / 1000))} ops/s`,
          ],
          [
            'bare KV CAS one by one',
            `${fmt((Math.min(2 * OBJECTS, 5000) / bareSeqMs) * 1000)} ops/s (would take ${fmt((bareSeqMs * 2 * OBJECTS) / Math.min(2 * OBJECTS, 5000))} ms for ${2 * OBJECTS})`,
          ],
          ['ratio burst / bare (same concurrency)', `${(burstMs / bareMs).toFixed(2)}x  (target <= 1.5x)`],
          [
            "the controller's writes alone",
            `${fmt(floorMs)} ms = ${(floorMs / bareMs).toFixed(2)}x bare (per object: read and compare-and-set the target, 2 events, state compare-and-set; no controller)`,
          ],
          [
            'the least the product allows',
            `${fmt(minimalMs)} ms = ${(minimalMs / bareMs).toFixed(2)}x bare (per object: one target compare-and-set, one event per execution; no read, no state)`,
          ],
          ['resident memory', `before ${fmt(rssBefore)} MB, armed ${fmt(rssArmed)} MB, peak ${fmt(rssPeak)} MB`],
        ],
      );
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
      const before = reports.all.length;
      await sleepUntil(spreadStart + SPREAD_S * 1000 + 1000);
      const mine = reports.all.slice(before).map((r) => r.executionTime.getTime() - r.scheduleTime.getTime());
      report(`cron spread: ${SPREAD_RULES} rules over ${SPREAD_S} s`, [
        ['lateness, executionTime - scheduleTime', `${stats(mine)}  (target p99 <= 10 ms)`],
      ]);
    });
  } finally {
    await redis.quit();
  }
});

// BullMQ's and the NATS client's sockets can outlive their close by a while; the numbers are printed, so leave.
process.exit(0);
