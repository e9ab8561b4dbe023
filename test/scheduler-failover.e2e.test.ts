// Reliability: kill -9 the scheduler leader in the middle of a burst of 1,000 new bindings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { connectBus, readEvents, type Bus } from '@flotilla/bus';
import { GatewayClient } from '@flotilla/client';
import { ObjectStore, StatusStore } from '@flotilla/store';
import { eventually, NATS_URL } from '@flotilla/testkit';
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
    await client.apply({
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: 'burst', namespace: 'default' },
      spec: {
        resourceSelectors: [
          { apiVersion: 'apps/v1', kind: 'Deployment', labelSelector: { matchLabels: { burst: 'yes' } } },
        ],
        placement: {
          clusterAffinity: { clusterNames: ['member1', 'member2', 'member3'] },
          replicaScheduling: {
            replicaSchedulingType: 'Divided',
            replicaDivisionPreference: 'Weighted',
            weightPreference: {
              staticWeightList: [
                { targetCluster: { clusterNames: ['member1'] }, weight: 2 },
                { targetCluster: { clusterNames: ['member2', 'member3'] }, weight: 1 },
              ],
            },
          },
        },
      },
    });

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
      window.push(
        client.apply({
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: `burst-${i}`, namespace: 'default', labels: { burst: 'yes' } },
          spec: {
            replicas: 4,
            selector: { matchLabels: { app: `b${i}` } },
            template: { metadata: { labels: { app: `b${i}` } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
          },
        }),
      );
      if (window.length >= 50) await Promise.all(window.splice(0));
    }
    await Promise.all(window);

    const store = new ObjectStore(bus);
    const statuses = new StatusStore(bus);
    // every binding: spec.clusters written AND its decision folded into status for that very generation
    const done = await eventually(
      async () => {
        const bindings = await store.list('ResourceBinding', 'default');
        const burst = bindings.filter((b) => b.metadata.name.startsWith('burst-'));
        if (burst.length < BURST) return undefined;
        const records = new Map(
          (
            await statuses.list<{
              schedulerObservedGeneration?: number;
              conditions?: Array<{ type: string; status: string }>;
            }>('ResourceBinding')
          ).map((r) => [r.ref.name, r.record.status]),
        );
        const complete = burst.every((b) => {
          const st = records.get(b.metadata.name);
          return (
            (b.spec as { clusters?: unknown[] }).clusters?.length &&
            st?.schedulerObservedGeneration === b.metadata.generation &&
            st?.conditions?.some((c) => c.type === 'Scheduled' && c.status === 'True')
          );
        });
        return complete ? burst : undefined;
      },
      90_000,
      'all 1,000 bindings scheduled and folded',
    );
    for (const b of done) {
      expect((b.spec as { clusters: unknown }).clusters).toEqual([
        { name: 'member1', replicas: 2 },
        { name: 'member2', replicas: 1 },
        { name: 'member3', replicas: 1 },
      ]);
    }

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
