import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KvWatchInclude, publishEvent } from '@flotilla/bus';
import { closeRedis, createRedis, LeaderElector, runWhileLeader } from '@flotilla/runtime';
import { eventually, REDIS_URL } from '@flotilla/testkit';
import { CronController } from './controller.js';
import { everySecondCron, harness, silent, type Harness } from './testing/harness.js';

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

    const outcomes = async () => (await h.events('ha-cron')).filter((e) => e.type !== 'CronNextScheduled');
    /** Waits until `more` schedule times beyond those recorded now have an outcome. */
    const executions = async (more: number, what: string) => {
      const before = (await outcomes()).length;
      await eventually(async () => ((await outcomes()).length >= before + more ? true : undefined), 15_000, what);
    };

    const a = replica('a');
    const b = replica('b');
    await a.start();
    await b.start();
    expect(a.elector.isLeader()).toBe(true);
    await executions(3, 'three schedule times executed by the first leader');
    a.crash();
    // b takes over once a's lease runs out; meanwhile a demotes itself at its own deadline.
    await eventually(() => (b.elector.isLeader() ? true : undefined), 10_000, 'b leading');
    await executions(2, 'two schedule times executed after the handover');
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
    await executions(3, 'three schedule times while the rogue runs beside the leader');
    await rogue.stop();
    await b.stop();
    await a.stop();
    // The watch has delivered every write of the target (its last revision), instead of a pause for stragglers.
    const lastWrite = (await h.bus.objects.get('Deployment.default.ha'))!.revision;
    await eventually(() => (writes.at(-1)! >= lastWrite ? true : undefined), 5000, 'the watch at the last write');
    watch.stop();

    const recorded = await outcomes();
    const times = recorded.map((e) => Date.parse(e.data.scheduleTime as string));
    expect(new Set(times).size).toBe(times.length);
    // No second between the first and the last is lost (a miss during the handover is recorded, not dropped).
    const sorted = [...times].sort((x, y) => x - y);
    expect(sorted.length).toBeGreaterThanOrEqual(8);
    expect(sorted.at(-1)! - sorted[0]!).toBe((sorted.length - 1) * 1000);
    const executed = recorded.filter((e) => e.type === 'CronRuleExecuted');
    // Each execution changed the target (2 <-> 3) exactly once.
    expect(writes.length).toBe(executed.length);
    for (const e of recorded.filter((x) => x.type === 'CronRuleFailed')) expect(e.data.missed).toBe(true);
  }, 30_000);
});
