// The fencing token checked where the cron-scheduler writes: a target carries the largest token of a leader that
// wrote it, and a write with a smaller one (a deposed leader that has not noticed yet) is refused in the same
// compare-and-set. Real electors on real Redis, real NATS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeRedis, createRedis, LeaderElector, type Fencing } from '@flotilla/runtime';
import { eventually, REDIS_URL } from '@flotilla/testkit';
import { fenceOf } from './execution-markers.js';
import { everySecondCron, harness, type Harness } from './testing/harness.js';

let h: Harness;
let leaseRedis: ReturnType<typeof createRedis>;
beforeAll(async () => {
  h = await harness('cron-fencing');
  leaseRedis = createRedis(REDIS_URL);
});
afterAll(async () => {
  await closeRedis(leaseRedis);
  await h?.dispose();
});

/** A logger that keeps its warnings, to wait for the refusal. */
function recordingLogger() {
  const warnings: string[] = [];
  return {
    warnings,
    logger: { info: () => undefined, warn: (_o: object, msg: string) => warnings.push(msg), error: () => undefined },
  };
}

const elector = (id: string) =>
  new LeaderElector({ redis: leaseRedis, key: `${h.prefix}:leader:cron-scheduler`, leaseMs: 5000, id });

async function target() {
  return h.store.get({ kind: 'Deployment', namespace: 'default', name: 'fenced' });
}

describe('the fencing token at the target write', () => {
  it('refuses a deposed leader’s write once a later leader wrote; a holder whose counter went back raises it', async () => {
    await everySecondCron(h, 'fenced');

    // 1. Leader a's term, then b's: a's token is what a leader that has not yet noticed its lease is gone still holds.
    const a = elector('a');
    await a.start();
    const stale = a.fencingToken as number;
    expect(stale).toBeGreaterThan(0);
    await a.stop();
    const b = elector('b');
    await b.start();
    const later = b.fencingToken as number;
    expect(later).toBeGreaterThan(stale);
    const newer = h.controller({ fencing: b.fencing });
    await newer.start();
    await eventually(async () => (fenceOf(await target()) === later ? true : undefined), 10_000, 'b’s write');
    await newer.stop();
    const afterB = await target();

    // 2. a's controller, still holding its old token: its write is refused, and nothing of it lands (no target write,
    // no execution event, no state advanced: it goes quiet until its term ends).
    const { warnings, logger } = recordingLogger();
    const deposedFencing: Fencing = { current: () => stale, raise: (seen) => a.raiseFencingToken(seen) };
    const deposed = h.controller({ fencing: deposedFencing, logger });
    const executedBefore = (await h.events('fenced-cron')).filter((e) => e.type === 'CronRuleExecuted').length;
    await deposed.start();
    await eventually(
      () => (warnings.some((w) => w.startsWith('target write refused')) ? true : undefined),
      10_000,
      'the deposed leader’s write refused',
    );
    await deposed.stop();
    const afterDeposed = await target();
    expect(afterDeposed?.metadata.resourceVersion).toBe(afterB?.metadata.resourceVersion);
    expect(fenceOf(afterDeposed)).toBe(later);
    const executedAfter = (await h.events('fenced-cron')).filter((e) => e.type === 'CronRuleExecuted').length;
    expect(executedAfter, 'no execution announced by the deposed leader').toBe(executedBefore);

    // 3. A Redis failover took the counter back: c holds the lease with a token below the target's. Its first write
    // is refused, it raises the counter past the target's token (it still holds the lease) and writes.
    await b.stop();
    await leaseRedis.set(`${h.prefix}:leader:cron-scheduler:fencing`, '0');
    const c = elector('c');
    await c.start();
    expect(c.fencingToken).toBe(1);
    const holder = h.controller({ fencing: c.fencing });
    await holder.start();
    await eventually(
      async () => (fenceOf(await target()) > later ? true : undefined),
      10_000,
      'c’s write with a raised token',
    );
    expect(c.fencingToken).toBe(later + 1);
    await holder.stop();
    await c.stop();
  }, 60_000);
});
