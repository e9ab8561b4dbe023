import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KvWatchInclude, publishEvent } from '@flotilla/bus';
import { closeRedis, createRedis, LeaderElector, runWhileLeader } from '@flotilla/runtime';
import { REDIS_URL } from '@flotilla/testkit';
import { CronController } from './controller.js';
import { everySecondCron, harness, silent, sleep, type Harness } from './testing/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await harness('cron-ha');
});
afterAll(async () => {
  await h?.dispose();
});

/** One replica: its own lease connection (cut to simulate a crash) and a controller while it leads. */
function replica(id: string) {
  const leaseRedis = createRedis(REDIS_URL);
  const elector = new LeaderElector({ redis: leaseRedis, key: `${h.prefix}:leader:cron`, leaseMs: 1000, id });
  const stopWork = runWhileLeader(elector, async (signal) => {
    const c = new CronController({
      bus: h.bus,
      redis: h.redis,
      queuePrefix: h.prefix,
      queueName: h.queueName,
      publish: (e) => publishEvent(h.bus, e),
      logger: silent,
    });
    await c.start();
    await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
    await c.stop();
  });
  return {
    elector,
    start: () => elector.start(),
    /** The lease connection dies: no renewal, no release, as when the process is killed. */
    crash: () => leaseRedis.disconnect(),
    async stop() {
      await stopWork();
      await elector.stop();
      await closeRedis(leaseRedis);
    },
  };
}

describe('two replicas, a leader that dies, and a rogue second actor', () => {
  it('executes every schedule time exactly once: one target write and one outcome each, none lost', async () => {
    await everySecondCron(h, 'ha');
    // Every write of the target, as the KV sees it.
    const writes: number[] = [];
    const watch = await h.bus.objects.watch({ key: 'Deployment.default.ha', include: KvWatchInclude.UpdatesOnly });
    void (async () => {
      for await (const e of watch) if (e.operation === 'PUT') writes.push(e.revision);
    })();

    const a = replica('a');
    const b = replica('b');
    await a.start();
    await b.start();
    expect(a.elector.isLeader()).toBe(true);
    await sleep(3000);
    a.crash();
    // b takes over once a's lease runs out; meanwhile a demotes itself at its own deadline.
    await sleep(3500);
    expect(b.elector.isLeader()).toBe(true);
    // Two actors at once (a stale leader that has not noticed yet): both plan the same schedule times.
    const rogue = new CronController({
      bus: h.bus,
      redis: h.redis,
      queuePrefix: h.prefix,
      queueName: h.queueName,
      publish: (e) => publishEvent(h.bus, e),
      logger: silent,
    });
    await rogue.start();
    await sleep(3000);
    await rogue.stop();
    await b.stop();
    await a.stop();
    await sleep(300);
    watch.stop();

    const outcomes = (await h.events('ha-cron')).filter((e) => e.type !== 'CronNextScheduled');
    const times = outcomes.map((e) => Date.parse(e.data.scheduleTime as string));
    expect(new Set(times).size).toBe(times.length);
    // No second between the first and the last is lost (a miss during the handover is recorded, not dropped).
    const sorted = [...times].sort((x, y) => x - y);
    expect(sorted.length).toBeGreaterThanOrEqual(8);
    expect(sorted.at(-1)! - sorted[0]!).toBe((sorted.length - 1) * 1000);
    const executed = outcomes.filter((e) => e.type === 'CronRuleExecuted');
    // Each execution changed the target (2 <-> 3) exactly once.
    expect(writes.length).toBe(executed.length);
    for (const e of outcomes.filter((x) => x.type === 'CronRuleFailed')) expect(e.data.missed).toBe(true);
  }, 30_000);
});
