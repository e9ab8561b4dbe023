// Reliability: kill -9 the scheduler leader in the middle of a burst of 1,000 new bindings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { connectBus, readEvents, type Bus } from '@flotilla/bus';
import { GatewayClient } from '@flotilla/client';
import { NATS_URL } from '@flotilla/testkit';
import { BURST_PLACEMENT, burstDeployment, burstPolicy, waitBurstScheduled } from './support/burst.js';
import { flotilla } from './support/cli.js';
import { leaderPid, ROOT, startSuite, type RunningSuite } from './support/suite.js';

const BURST = 1000;
let s: RunningSuite;
let bus: Bus;

beforeAll(async () => {
  s = await startSuite(['gateway', 'status-writer', 'member-agent', 'affinity-scheduler'], {
    LEADER_LEASE_MS: '2000',
    SIM_TICK_MS: '500',
  });
  await s.suite.startService('affinity-scheduler'); // the standby
  bus = await connectBus({ url: NATS_URL, prefix: s.env.FLOTILLA_PREFIX });
}, 60_000);

afterAll(async () => {
  await bus?.close();
  await s?.stop();
});

describe('scheduler leader killed during a burst', () => {
  it('the standby takes over and every binding ends scheduled once and correctly', async () => {
    expect((await flotilla(s.env, ['apply', '-f', join(ROOT, 'examples', '00-clusters.yaml')])).code).toBe(0);
    for (const c of ['member1', 'member2', 'member3'])
      await flotilla(s.env, ['wait', '--for=condition=Ready', `cluster/${c}`, '--timeout', '20s']);
    const client = new GatewayClient(bus.nc, { apiRoot: bus.names.apiRoot, timeoutMs: 30_000 });
    await client.apply(burstPolicy('burst'));

    const leader = await leaderPid(s.env.FLOTILLA_PREFIX!, 'affinity-scheduler');
    const victim = s.suite.processes.find((p) => p.name === 'affinity-scheduler' && p.child.pid === leader);
    expect(victim, 'the leader is one of our scheduler processes').toBeDefined();

    let killedAt = 0;
    const window: Promise<unknown>[] = [];
    for (let i = 0; i < BURST; i++) {
      if (i === BURST / 4) {
        killedAt = Date.now();
        await s.suite.kill(victim!, 'SIGKILL');
      }
      window.push(client.apply(burstDeployment('burst', i)));
      if (window.length >= 50) await Promise.all(window.splice(0));
    }
    await Promise.all(window);

    // every binding: spec.clusters written AND its decision folded into status for that very generation
    const done = await waitBurstScheduled(bus, { namePrefix: 'burst-', count: BURST, timeoutMs: 90_000 });
    for (const b of done) expect((b.spec as { clusters: unknown }).clusters).toEqual(BURST_PLACEMENT);

    // none duplicated: one BindingScheduled per binding and generation (decision ids are deterministic)
    const perBinding = new Map<string, Set<string>>();
    let firstAfterKill = Infinity;
    for await (const d of readEvents(bus, { filter: { kind: 'ResourceBinding', type: 'BindingScheduled' } })) {
      const name = d.event.flotillaname;
      const gen = String(
        (d.event.data as { statusPatch: { schedulerObservedGeneration: number } }).statusPatch
          .schedulerObservedGeneration,
      );
      const seen = perBinding.get(name) ?? new Set<string>();
      expect(seen.has(gen), `${name} generation ${gen} announced twice`).toBe(false);
      seen.add(gen);
      perBinding.set(name, seen);
      const t = Date.parse(d.event.time);
      if (t > killedAt + 50) firstAfterKill = Math.min(firstAfterKill, t);
    }
    expect([...perBinding.keys()].filter((n) => n.startsWith('burst-'))).toHaveLength(BURST);
    const takeoverMs = firstAfterKill - killedAt;
    console.log(
      `scheduler takeover after kill -9 of the leader: first decision by the standby ${takeoverMs} ms after the kill (LEADER_LEASE_MS=2000)`,
    );
    expect(Number.isFinite(takeoverMs)).toBe(true);
  }, 150_000);
});
