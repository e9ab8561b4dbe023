// Issue 24, item 1: a cluster whose member-agent is gone does not stay Ready forever. The sim agent renews a lease per
// simulated cluster; kill -9 it and the scheduler's cluster-health controller sets each of its clusters
// Ready=Unknown (Karmada's reason and message) within the grace period, the failover taint follows, nothing more is
// written while the agent stays away, and a new agent makes the clusters Ready again.
import { connectBus, decodeJson, readEvents, type Bus } from '@flotilla/bus';
import { ObjectStore, StatusStore } from '@flotilla/store';
import { eventually, NATS_URL } from '@flotilla/testkit';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { flotilla } from './support/cli.js';
import { startSuite, type RunningSuite } from './support/suite.js';

const GRACE_MS = 3000;
const RENEW_MS = 500;
let s: RunningSuite | undefined;
let bus: Bus;

beforeAll(async () => {
  s = await startSuite(['gateway', 'status-writer', 'member-agent', 'affinity-scheduler'], {
    SIM_TICK_MS: '200',
    CLUSTER_LEASE_RENEW_MS: String(RENEW_MS),
    CLUSTER_MONITOR_GRACE_MS: String(GRACE_MS),
    FAILOVER_GRACE_MS: '1000',
  });
  bus = await connectBus({ url: NATS_URL, prefix: s.env.FLOTILLA_PREFIX });
}, 60_000);

afterAll(async () => {
  await bus?.close();
  await s?.stop();
});

type Condition = { type: string; status: string; reason?: string; message?: string };
const readyOf = async (name: string) => {
  const r = await new StatusStore(bus).get<{ conditions?: Condition[] }>({ kind: 'Cluster', name });
  return r?.value.status.conditions?.find((c) => c.type === 'Ready');
};
const taintsOf = async (name: string) =>
  ((await new ObjectStore(bus).get({ kind: 'Cluster', name }))?.spec as { taints?: Array<{ key: string }> })?.taints ??
  [];
const expiredEvents = async () => {
  let n = 0;
  for await (const _ of readEvents(bus, { filter: { kind: 'Cluster', type: 'ClusterStatusExpired' } })) n++;
  return n;
};

describe('cluster lease', () => {
  it('a killed sim agent: Ready=Unknown within the grace period, tainted unreachable, quiet, Ready again with a new agent', async () => {
    onTestFailed(() => console.log(`the services' last output:\n${s!.logs.slice(-60).join('\n')}`));
    for (const c of ['sim1', 'sim2']) {
      expect((await flotilla(s!.env, ['cluster', 'add', c, '--sim'])).code).toBe(0);
      expect((await flotilla(s!.env, ['wait', '--for=condition=Ready', `cluster/${c}`, '--timeout', '30s'])).code).toBe(
        0,
      );
    }
    // The agent renews each cluster's lease in the leases bucket.
    const lease = await eventually(async () => {
      const e = await bus.leases.get('Cluster._.sim1');
      return e?.value.length ? decodeJson<{ holderIdentity: string; renewTime: string }>(e.value) : undefined;
    });
    expect(lease.holderIdentity).toMatch(/^member-agent\/sim@/);
    // Alive, the clusters stay Ready past the grace period.
    await new Promise((r) => setTimeout(r, GRACE_MS + 1000));
    expect((await readyOf('sim1'))?.status).toBe('True');
    expect(await expiredEvents()).toBe(0);

    const agent = s!.suite.processes.find((p) => p.name === 'member-agent');
    const killedAt = Date.now();
    await s!.suite.kill(agent!, 'SIGKILL');

    for (const c of ['sim1', 'sim2']) {
      const ready = await eventually(
        async () => {
          const r = await readyOf(c);
          return r?.status === 'Unknown' ? r : undefined;
        },
        GRACE_MS + 5000 - (Date.now() - killedAt),
        `${c} Ready=Unknown within the grace period + 5 s`,
      );
      expect(ready).toMatchObject({
        reason: 'ClusterStatusUnknown',
        message: 'Cluster status controller stopped posting cluster status.',
      });
    }
    const unknownAfterMs = Date.now() - killedAt;
    // Not before the grace period ran out (the last renewal came RENEW_MS before the kill at most, give or take a
    // busy machine's late ticks).
    expect(unknownAfterMs).toBeGreaterThanOrEqual(GRACE_MS - RENEW_MS - 500);
    console.log(`sim agent killed: both clusters Ready=Unknown ${unknownAfterMs} ms later (grace ${GRACE_MS} ms)`);
    // The failover taint follows as for any not-Ready cluster.
    await eventually(
      async () => ((await taintsOf('sim1')).some((t) => t.key === 'cluster.karmada.io/unreachable') ? true : undefined),
      10_000,
      'sim1 tainted unreachable',
    );

    // Quiet: one expiry per cluster, however long the agent stays away.
    await new Promise((r) => setTimeout(r, 2 * GRACE_MS));
    expect(await expiredEvents()).toBe(2);

    // A new agent renews the leases and reports the clusters Ready again; the taint goes.
    await s!.suite.startService('member-agent');
    for (const c of ['sim1', 'sim2'])
      expect((await flotilla(s!.env, ['wait', '--for=condition=Ready', `cluster/${c}`, '--timeout', '30s'])).code).toBe(
        0,
      );
    await eventually(async () => ((await taintsOf('sim1')).length === 0 ? true : undefined), 10_000, 'sim1 untainted');
    expect(await expiredEvents()).toBe(2);
  }, 120_000);
});
