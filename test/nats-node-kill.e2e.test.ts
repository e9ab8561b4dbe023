// No single point of failure in NATS: the services on a 3-node JetStream cluster of this file's own (streams and
// buckets at 3 replicas, the default on a cluster), kill -9 of the node leading the objects bucket in the middle of a
// burst of applies. Every workload ends scheduled once, no event is lost or duplicated, writes stall no longer than
// the cluster's own election plus 2 s, and the node comes back and catches up. Then a quorum is lost (two nodes
// down): /readyz says so, and every service is ready again by itself once the quorum is back.
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { join } from 'node:path';
import { connectBus, readEvents, requiredStreams, type Bus } from '@flotilla/bus';
import { GatewayClient, isRetryable } from '@flotilla/client';
import { Suite } from '@flotilla/launcher';
import { BURST_PLACEMENT, burstDeployment, burstPolicy, waitBurstScheduled } from './support/burst.js';
import {
  CpuWaitingRecorder,
  eventually,
  measureCpuShare,
  PrivateNatsCluster,
  REDIS_URL,
  scaled,
  testTimeScale,
  timeScaleForCpuShare,
  timeScaleForCpuWaiting,
  uniquePrefix,
} from '@flotilla/testkit';
import { flotilla } from './support/cli.js';
import { removeRedisKeys, ROOT } from './support/suite.js';

/** Sized to finish in well under two minutes on two shared cores (the issue's 2,000 is a bench-sized burst). */
const BURST = 600;
const IN_FLIGHT = 20;
const SERVICES = ['gateway', 'status-writer', 'member-agent', 'affinity-scheduler'];

let cluster: PrivateNatsCluster | undefined;
let suite: Suite | undefined;
let bus: Bus | undefined;
let callerBus: Bus | undefined;
let pressure: CpuWaitingRecorder | undefined;
const logs: string[] = [];
const prefix = uniquePrefix('ha-nats');
let env: Record<string, string>;
const killCluster = () => {
  for (const n of cluster?.nodes ?? []) void n.stop('SIGKILL');
};
let setupError: unknown;

beforeAll(async () => {
  try {
    process.once('exit', killCluster);
    cluster = await PrivateNatsCluster.start();
    env = {
      NATS_URL: cluster.url,
      REDIS_URL,
      FLOTILLA_PREFIX: prefix,
      LOG_LEVEL: 'info',
      LEADER_LEASE_MS: '2000',
      SIM_TICK_MS: '500',
      PROVISION_CHECK_MS: '1000',
      // What deploy/secret.example.yaml recommends on a cluster: a write sent while the objects elect a leader is sent
      // again every half second within it, then its caller (the gateway's, here) asks again a second later.
      NATS_TIMEOUT_MS: '2000',
    };
    suite = new Suite({ root: ROOT, services: SERVICES, env, onOutput: (s, l) => logs.push(`[${s}] ${l}`) });
    await suite.start();
    bus = await connectBus({ url: cluster.url, prefix, name: 'nats-node-kill-test' });
  } catch (err) {
    setupError = err;
  }
}, scaled(120_000));

afterAll(async () => {
  pressure?.stop();
  try {
    await bus?.close().catch(() => undefined);
    await callerBus?.close().catch(() => undefined);
    await suite?.stop();
    await removeRedisKeys(prefix);
  } finally {
    await cluster?.dispose();
    process.off('exit', killCluster);
  }
}, scaled(60_000));

function setUp(): { cluster: PrivateNatsCluster; suite: Suite; bus: Bus } {
  if (setupError) throw setupError;
  onTestFailed(() => console.log(`the services' last output:\n${logs.slice(-40).join('\n')}`));
  return { cluster: cluster!, suite: suite!, bus: bus! };
}

const deployment = (i: number) => burstDeployment('ha', i);

describe('kill -9 of the NATS node leading the objects bucket during a burst of applies', () => {
  it('streams and buckets have 3 replicas on a cluster when NATS_REPLICAS is not set', async () => {
    const { bus } = setUp();
    for (const stream of [bus.names.eventsStream, `KV_${bus.names.objectsBucket}`, `KV_${bus.names.statusBucket}`])
      expect((await bus.jsm.streams.info(stream)).config.num_replicas, stream).toBe(3);
  });

  it(
    'every workload is scheduled once, no event is lost or duplicated, writes resume within election + 2 s',
    async () => {
      const { cluster, bus } = setUp();
      expect((await flotilla(env, ['apply', '-f', join(ROOT, 'examples', '00-clusters.yaml')])).code).toBe(0);
      for (const c of ['member1', 'member2', 'member3'])
        await flotilla(env, ['wait', '--for=condition=Ready', `cluster/${c}`, '--timeout', '30s']);
      const objectsStream = `KV_${bus.names.objectsBucket}`;
      const victim = await eventually(() => cluster.streamLeader(objectsStream), 10_000, 'a leader of the objects');
      // The applies go through the node to be killed, the worst case for a caller: what it has in flight dies with the
      // node, and the client must not sit out its timeout (10 s here, longer than the budget) before it asks again.
      callerBus = await connectBus({ url: cluster.nodeUrl(victim), prefix, name: 'nats-node-kill-caller' });
      const client = new GatewayClient(callerBus.nc, { apiRoot: bus.names.apiRoot, timeoutMs: 10_000 });
      await client.apply(burstPolicy('ha'));
      const led: string[] = [];
      for (const stream of requiredStreams(bus.names))
        if ((await cluster.streamLeader(stream)) === victim) led.push(stream);
      /** Answers that were not "done": each is retried (as a client does with a retryable answer), none may be final. */
      const refusals = new Map<string, number>();
      const accepted: number[] = [];
      const applyOne = async (i: number) => {
        for (;;) {
          try {
            await client.apply(deployment(i));
            accepted.push(Date.now());
            return;
          } catch (err) {
            const what = isRetryable(err) ? err.constructor.name : `${(err as Error).name}: ${(err as Error).message}`;
            refusals.set(what, (refusals.get(what) ?? 0) + 1);
            // Only "not now" answers and the client's own request timing out while it reconnects are retried.
            if (!isRetryable(err) && !/timeout|TIMEOUT|no responders|disconnect|closed/i.test(String(err))) throw err;
            await new Promise((r) => setTimeout(r, 50));
          }
        }
      };

      // The 2 s of slack is scaled for a busy machine as every budget of the suite is, by the largest of the suite's
      // factor (measured at its start), the factor measured before and after the burst, and the machine's CPU pressure
      // in the stall itself: the suite's own heaviest files (the chart on a real node) can run beside this one, and
      // once took the stall 186 ms past an unscaled budget; another time 0.9 s past it with a share of a whole core
      // measured before and after (a load that came and went between the samples).
      const shareBefore = measureCpuShare();
      pressure = new CpuWaitingRecorder();
      let killedAt = 0;
      let electedAt = 0;
      const inFlight = new Set<Promise<void>>();
      for (let i = 0; i < BURST; i++) {
        if (i === BURST / 4) {
          killedAt = Date.now();
          await cluster.kill(victim);
          // The cluster's own election, as its monitoring sees it: a new leader of every stream the victim led.
          void eventually(
            async () => {
              for (const stream of led) {
                const leader = await cluster.streamLeader(stream);
                if (leader === undefined || leader === victim) return undefined;
              }
              return true;
            },
            60_000,
            `new leaders of ${led.join(', ')}`,
          ).then(() => {
            electedAt = Date.now();
          });
        }
        const p = applyOne(i).finally(() => inFlight.delete(p));
        inFlight.add(p);
        if (inFlight.size >= IN_FLIGHT) await Promise.race(inFlight);
      }
      await Promise.all(inFlight);
      await eventually(() => (electedAt ? true : undefined), 60_000, 'the election');

      const electionMs = electedAt - killedAt;
      const after = accepted.filter((t) => t >= killedAt).sort((a, b) => a - b);
      const firstWriteMs = (after[0] ?? Infinity) - killedAt;
      let longestGapMs = firstWriteMs;
      let gapEnd = after[0] ?? 0;
      for (let k = 1; k < after.length; k++) {
        const gap = after[k]! - after[k - 1]!;
        if (gap > longestGapMs) [longestGapMs, gapEnd] = [gap, after[k]!];
      }
      // Some task of the machine waited for a core this share of the stall (Linux's CPU pressure; none elsewhere).
      const waiting = pressure.waitingShare(gapEnd - longestGapMs, gapEnd);
      const slackMs = Math.round(
        2000 *
          Math.max(
            testTimeScale(),
            timeScaleForCpuShare(Math.min(shareBefore, measureCpuShare())),
            waiting === undefined ? 1 : timeScaleForCpuWaiting(waiting),
          ),
      );
      console.log(
        `kill -9 of ${cluster.serverNames[victim]} (leader of ${led.join(', ')}): new leaders after ${electionMs} ms, ` +
          `first write accepted ${firstWriteMs} ms after the kill, longest write stall ${longestGapMs} ms (budget ${electionMs + slackMs} ms) ` +
          `(ending ${gapEnd - killedAt} ms after the kill; some task waited for a core ${waiting === undefined ? 'for an unknown share' : `${Math.round(waiting * 100)} %`} of it); ` +
          `answers retried: ${JSON.stringify(Object.fromEntries(refusals))}`,
      );
      // The issue's budget: the election plus 2 s (a request's timeout, a retry, the services' own work), scaled above.
      expect(longestGapMs).toBeLessThanOrEqual(electionMs + slackMs);

      const done = await waitBurstScheduled(bus, { namePrefix: 'ha-', count: BURST, timeoutMs: 90_000 });
      for (const b of done) expect((b.spec as { clusters: unknown }).clusters).toEqual(BURST_PLACEMENT);

      // No event lost or duplicated: one BindingScheduled per binding, and the event ids are all different.
      const scheduled = new Map<string, number>();
      const ids = new Set<string>();
      for await (const d of readEvents(bus, { filter: { kind: 'ResourceBinding', type: 'BindingScheduled' } })) {
        expect(ids.has(d.event.id), `event ${d.event.id} stored twice`).toBe(false);
        ids.add(d.event.id);
        if (d.event.flotillaname.startsWith('ha-'))
          scheduled.set(d.event.flotillaname, (scheduled.get(d.event.flotillaname) ?? 0) + 1);
      }
      expect(scheduled.size).toBe(BURST);
      expect([...scheduled].filter(([, n]) => n !== 1)).toEqual([]);

      // The node comes back with its store and catches up: healthy (its streams current) and holding every object.
      await cluster.restart(victim);
      await cluster.waitHealthy(60_000);
      const objectsLastSeq = (await bus.jsm.streams.info(objectsStream)).state.last_seq;
      await eventually(
        async () => ((await cluster.storedLastSeq(victim, objectsStream)) === objectsLastSeq ? true : undefined),
        60_000,
        `${cluster.serverNames[victim]} to hold the objects up to ${objectsLastSeq}`,
      );
    },
    scaled(240_000),
  );
});

describe('a NATS quorum lost and back', () => {
  it(
    '/readyz names what is missing while two of three nodes are down, and every service recovers by itself',
    async () => {
      const { cluster, suite } = setUp();
      const readyz = async (port: number) => {
        const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2000) });
        return { status: res.status, body: await res.text() };
      };
      for (const [i, node] of cluster.nodes.entries()) if (!node.running) await cluster.restart(i);
      await cluster.waitHealthy(60_000);
      const ports = suite.processes.map((p) => p.httpPort);
      await eventually(
        async () => ((await Promise.all(ports.map(readyz))).every((a) => a.status === 200) ? true : undefined),
        30_000,
        'every service ready before the quorum is lost',
      );
      await cluster.kill(1);
      await cluster.kill(2);
      const reasons = await eventually(
        async () => {
          const answers = await Promise.all(ports.map(readyz));
          return answers.every((a) => a.status === 503) ? answers.map((a) => a.body) : undefined;
        },
        30_000,
        'every service not ready',
      );
      console.log(`/readyz without a NATS quorum:\n${[...new Set(reasons)].join('')}`);
      // Each names NATS: the connection while it moves to the node left, then the streams JetStream cannot serve.
      for (const body of reasons) expect(body).toMatch(/nats|JetStream/);
      await cluster.restart(1);
      await cluster.restart(2);
      await cluster.waitHealthy(60_000);
      await eventually(
        async () => ((await Promise.all(ports.map(readyz))).every((a) => a.status === 200) ? true : undefined),
        60_000,
        'every service ready again',
      );
    },
    scaled(180_000),
  );
});
