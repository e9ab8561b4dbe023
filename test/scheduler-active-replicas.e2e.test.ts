// Active scheduler replicas (SCHEDULER_REPLICAS=active): every replica schedules its own share of the bindings.
// 1. Two replicas, one killed with -9 a third of the way through 2,000 workloads: every binding scheduled exactly
//    once and correctly, and the survivor takes the dead replica's share within its lease + 1 s.
// 2. A third replica added while two work: the others are not restarted, and it takes a share of what comes next.
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { connectBus, readEvents, type Bus } from '@flotilla/bus';
import { GatewayClient } from '@flotilla/client';
import { ownerOf } from '@flotilla/controller';
import type { ServiceProcess } from '@flotilla/launcher';
import { BURST_CLUSTERS, BURST_PLACEMENT, burstDeployment, burstPolicy, waitBurstScheduled } from './support/burst.js';
import { eventually, NATS_URL, scaled } from '@flotilla/testkit';
import { flotilla } from './support/cli.js';
import { ROOT, startSuite, type RunningSuite } from './support/suite.js';

const LEASE_MS = 3000;
const ACTIVE = { SCHEDULER_REPLICAS: 'active' };

let s: RunningSuite | undefined;
let bus: Bus | undefined;

afterEach(async () => {
  await bus?.close();
  await s?.stop();
  bus = undefined;
  s = undefined;
});

/** The gateway, status writer and sim agent, and `replicas` active schedulers, on a fresh prefix with clusters Ready. */
async function startActive(replicas: number): Promise<{ suite: RunningSuite; bus: Bus; client: GatewayClient }> {
  s = await startSuite(['gateway', 'status-writer', 'member-agent'], {
    LEADER_LEASE_MS: String(LEASE_MS),
    SIM_TICK_MS: '500',
  });
  for (let i = 0; i < replicas; i++) await s.suite.startService('affinity-scheduler', ACTIVE);
  bus = await connectBus({ url: NATS_URL, prefix: s.env.FLOTILLA_PREFIX });
  expect((await flotilla(s.env, ['apply', '-f', join(ROOT, 'examples', '00-clusters.yaml')])).code).toBe(0);
  for (const c of BURST_CLUSTERS)
    await flotilla(s.env, ['wait', '--for=condition=Ready', `cluster/${c}`, '--timeout', '20s']);
  const client = new GatewayClient(bus.nc, { apiRoot: bus.names.apiRoot, timeoutMs: 30_000 });
  await client.apply(burstPolicy('burst'));
  return { suite: s, bus, client };
}

/** Applies burst-from … burst-(to-1) fifty at a time; `before(i)` runs before workload i is sent. */
async function applyBurst(client: GatewayClient, from: number, to: number, before?: (i: number) => Promise<void>) {
  const window: Promise<unknown>[] = [];
  for (let i = from; i < to; i++) {
    await before?.(i);
    window.push(client.apply(burstDeployment('burst', i)));
    if (window.length >= 50) await Promise.all(window.splice(0));
  }
  await Promise.all(window);
}

/** The names of the active schedulers NATS counts as members (their member consumers on the leases stream). */
async function members(b: Bus): Promise<string[]> {
  const prefix = 'shares-affinity-scheduler-';
  const names: string[] = [];
  for await (const c of b.jsm.consumers.list(`KV_${b.names.leasesBucket}`))
    if (c.name.startsWith(prefix)) names.push(c.name.slice(prefix.length));
  return names.sort();
}

/** Scheduling decisions a replica made itself (its own /metrics). */
async function scheduledBy(p: ServiceProcess): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${p.httpPort}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('karmada_scheduler_schedule_attempts_total{') && l.includes('result="scheduled"'))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

/** Waits until burst-0 … burst-(count-1) are all scheduled and folded for their generation, and checks the result. */
async function expectAllScheduledOnce(b: Bus, count: number): Promise<Map<string, number>> {
  const done = await waitBurstScheduled(b, { namePrefix: 'burst-', count, timeoutMs: scaled(120_000) });
  expect(done).toHaveLength(count);
  for (const x of done) expect((x.spec as { clusters: unknown }).clusters).toEqual(BURST_PLACEMENT);
  // Exactly once: one BindingScheduled per binding and generation (decision ids are deterministic, so a second
  // replica's equal decision would be the same message; a different one would be a second generation here).
  const firstScheduledAt = new Map<string, number>();
  /** Each binding generation's announcement: its event id and data, printed beside a second one if one comes. */
  const seen = new Map<string, { id: string; data: unknown }>();
  for await (const d of readEvents(b, { filter: { kind: 'ResourceBinding', type: 'BindingScheduled' } })) {
    const name = d.event.flotillaname;
    if (!name.startsWith('burst-')) continue;
    const generation = (d.event.data as { statusPatch: { schedulerObservedGeneration: number } }).statusPatch
      .schedulerObservedGeneration;
    const id = `${name}/${generation}`;
    const earlier = seen.get(id);
    expect(
      earlier,
      `${id} announced twice: ${JSON.stringify(earlier)} and ${JSON.stringify({ id: d.event.id, data: d.event.data })}`,
    ).toBeUndefined();
    seen.set(id, { id: d.event.id, data: d.event.data });
    if (!firstScheduledAt.has(name)) firstScheduledAt.set(name, Date.parse(d.event.time));
  }
  expect(firstScheduledAt.size).toBe(count);
  return firstScheduledAt;
}

describe('active scheduler replicas', () => {
  it('kill -9 of one of two replicas mid-way through 2,000 workloads: all scheduled once, its share taken within lease + 1 s', async () => {
    const COUNT = 2000;
    const { suite, bus: b, client } = await startActive(2);
    const schedulers = suite.suite.processes.filter((p) => p.name === 'affinity-scheduler');
    const before = await eventually(async () => ((await members(b)).length === 2 ? members(b) : undefined), 10_000);
    const [victim, survivor] = schedulers as [ServiceProcess, ServiceProcess];

    let killedAt = 0;
    await applyBurst(client, 0, COUNT, async (i) => {
      if (i !== Math.floor(COUNT / 3)) return;
      // Both replicas have been at work before the kill.
      await eventually(
        async () => ((await scheduledBy(victim)) > 0 && (await scheduledBy(survivor)) > 0 ? true : undefined),
        scaled(30_000),
        'both replicas scheduling',
      );
      killedAt = Date.now();
      await suite.suite.kill(victim, 'SIGKILL');
    });
    const after = await eventually(
      async () => ((await members(b)).length === 1 ? members(b) : undefined),
      scaled(LEASE_MS + 5000),
      'the dead replica gone from the members',
    );
    const dead = before.find((m) => !after.includes(m)) as string;

    const firstScheduledAt = await expectAllScheduledOnce(b, COUNT);
    // The dead replica's share: the bindings it owned (by their template's key, which decides when the binding is
    // made, or the binding's own) that were first scheduled after the kill. The earliest is the survivor's first
    // write on that share.
    const deadsShare = [...firstScheduledAt].filter(
      ([name, at]) =>
        at > killedAt &&
        (ownerOf(`Deployment.default.${name.replace(/-deployment$/, '')}`, before) === dead ||
          ownerOf(`ResourceBinding.default.${name}`, before) === dead),
    );
    expect(deadsShare.length, 'bindings of the dead replica’s share applied after the kill').toBeGreaterThan(0);
    const takeoverMs = Math.min(...deadsShare.map(([, at]) => at)) - killedAt;
    const tookShareAt = suite.logs
      .filter((l) => l.includes('replica shares: members changed') && l.includes(`"left":["${dead}"]`))
      .map((l) => Date.parse(JSON.parse(l.slice(l.indexOf('{'))).time as string));
    expect(tookShareAt, 'the survivor logged the dead replica leaving').toHaveLength(1);
    const ownershipMs = (tookShareAt[0] as number) - killedAt;
    console.log(
      `active replicas: kill -9 of one of two; the survivor owned its share ${ownershipMs} ms and wrote the first ` +
        `binding of it ${takeoverMs} ms after the kill (LEADER_LEASE_MS=${LEASE_MS}); ` +
        `decisions before the kill: victim and survivor both > 0, ${await scheduledBy(survivor)} by the survivor in all`,
    );
    expect(ownershipMs).toBeLessThanOrEqual(LEASE_MS + 1000);
    expect(takeoverMs).toBeLessThanOrEqual(scaled(LEASE_MS + 1000));
  }, 300_000);

  it('a third replica joins without restarting the others and takes a share of the work', async () => {
    const { suite, bus: b, client } = await startActive(2);
    const first = suite.suite.processes.filter((p) => p.name === 'affinity-scheduler');
    const pids = first.map((p) => p.child.pid);
    await applyBurst(client, 0, 300);
    await expectAllScheduledOnce(b, 300);

    const third = await suite.suite.startService('affinity-scheduler', ACTIVE);
    await eventually(async () => ((await members(b)).length === 3 ? true : undefined), 10_000, 'three members');
    await applyBurst(client, 300, 900);
    await expectAllScheduledOnce(b, 900);

    const counts = await Promise.all([...first, third].map(scheduledBy));
    console.log(`active replicas: decisions per replica after the third joined: ${counts.join(', ')}`);
    expect(counts[2], 'the third replica scheduled its share').toBeGreaterThan(0);
    // The first two kept running through the join: the same processes, never exited.
    expect(first.map((p) => p.child.pid)).toEqual(pids);
    for (const p of first) expect(p.child.exitCode).toBeNull();
  }, 300_000);
});
