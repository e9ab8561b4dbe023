// The fleet at scale (issue 25 item 6): gateway, status-writer, member-agent (BENCH_CLUSTERS simulated clusters,
// 1,000 by default) and affinity-scheduler as processes on a fresh prefix, one Divided (dynamic weight) policy over
// every cluster. Three phases, each timed until it has settled:
// 1. schedule: BENCH_WORKLOADS Deployments (20,000) applied through the gateway, BENCH_IN_FLIGHT at a time, until a
//    BindingScheduled has been seen for every binding;
// 2. fail: BENCH_FAIL clusters (10) made unreachable in one go (`flotilla cluster fail`, all applied at once), until
//    each carries the NoExecute taint and no binding names one of them any more. The scheduler's failover grace
//    (FAILOVER_GRACE_MS, Karmada's eviction timeout) is BENCH_FAILOVER_GRACE_MS here, 5 s, and is inside this time;
// 3. recover: the same clusters made reachable again, until none carries the taint.
// Then a quiet spell of BENCH_QUIET_MS, nothing applied. Each phase reports the bus's domain events and the objects
// bucket's writes per second (core NATS subscriptions on their subjects), and each service's resident memory at its
// end and its peak since start (VmHWM). The bench process keeps every binding's clusters from the writes it sees.
import { connectBus, decodeJson, type Bus } from '@flotilla/bus';
import { GatewayClient } from '@flotilla/client';
import { NATS_URL } from '@flotilla/testkit';
import { startSuite } from '../test/support/suite.js';
import {
  applyAndSchedule,
  applyBenchFleet,
  benchCluster,
  boundedRun,
  fmt,
  report,
  rssOfPidMb,
  waitFor,
} from './support.js';

const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 1000);
const WORKLOADS = Number(process.env.BENCH_WORKLOADS ?? 20_000);
const FAIL = Number(process.env.BENCH_FAIL ?? 10);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 64);
const FAILOVER_GRACE_MS = process.env.BENCH_FAILOVER_GRACE_MS ?? '5000';
const QUIET_MS = Number(process.env.BENCH_QUIET_MS ?? 10_000);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 1_800_000);
const SERVICES = ['gateway', 'status-writer', 'member-agent', 'affinity-scheduler'];
const progress = (msg: string) => console.error(`[scale] ${msg}`);

interface Phase {
  name: string;
  ms: number;
  events: number;
  /** The commonest event types of the phase. */
  topEvents: string;
  writes: number;
  memory: Record<string, { rss: number; peak: number }>;
}

/** Counts what the bus carries and keeps each binding's clusters and each cluster's NoExecute taint, from the writes. */
function watchFleet(bus: Bus) {
  const counts = { events: 0, writes: 0 };
  const eventTypes = new Map<string, number>();
  const bindingClusters = new Map<string, string[]>();
  const tainted = new Set<string>();
  const objects = `$KV.${bus.names.objectsBucket}`;
  const subs = [
    bus.nc.subscribe(`${bus.names.eventsRoot}.>`, {
      callback: (_err, msg) => {
        counts.events++;
        const type = msg.subject.slice(msg.subject.lastIndexOf('.') + 1);
        eventTypes.set(type, (eventTypes.get(type) ?? 0) + 1);
      },
    }),
    bus.nc.subscribe(`${objects}.>`, { callback: () => void counts.writes++ }),
    bus.nc.subscribe(`${objects}.ResourceBinding.>`, {
      callback: (err, msg) => {
        if (err) return;
        const key = msg.subject.slice(objects.length + 1);
        if (!msg.data.length) return void bindingClusters.delete(key);
        const b = decodeJson<{ spec?: { clusters?: Array<{ name: string }> } }>(msg.data);
        bindingClusters.set(
          key,
          (b.spec?.clusters ?? []).map((c) => c.name),
        );
      },
    }),
    bus.nc.subscribe(`${objects}.Cluster.>`, {
      callback: (err, msg) => {
        if (err || !msg.data.length) return;
        const c = decodeJson<{ metadata: { name: string }; spec?: { taints?: Array<{ effect: string }> } }>(msg.data);
        if (c.spec?.taints?.some((t) => t.effect === 'NoExecute')) tainted.add(c.metadata.name);
        else tainted.delete(c.metadata.name);
      },
    }),
  ];
  return {
    counts,
    tainted,
    /** The event types seen so far and how many of each; read and reset. */
    takeEventTypes(): Map<string, number> {
      const taken = new Map(eventTypes);
      eventTypes.clear();
      return taken;
    },
    /** Bindings that name at least one of `clusters`. */
    bindingsOn(clusters: Set<string>): number {
      let n = 0;
      for (const names of bindingClusters.values()) if (names.some((c) => clusters.has(c))) n++;
      return n;
    },
    async close() {
      for (const s of subs) s.unsubscribe();
    },
  };
}

const s = await startSuite(SERVICES, {
  LOG_LEVEL: 'warn',
  // The services' default lease; the test suite's 2 s lease is lost whenever a busy service blocks its loop that long.
  LEADER_LEASE_MS: process.env.BENCH_LEASE_MS ?? '10000',
  FAILOVER_GRACE_MS,
});
progress(`suite up on prefix ${s.env.FLOTILLA_PREFIX}`);
const bus = await connectBus({ url: NATS_URL, prefix: s.env.FLOTILLA_PREFIX, name: 'bench-scale' });
const fleet = watchFleet(bus);
try {
  const client = new GatewayClient(bus.nc, { apiRoot: bus.names.apiRoot, timeoutMs: 60_000 });
  const pidOf = (name: string) => s.suite.processes.find((p) => p.name === name)?.child.pid;
  const memory = () =>
    Object.fromEntries(SERVICES.map((n) => [n, { rss: rssOfPidMb(pidOf(n)), peak: rssOfPidMb(pidOf(n), 'VmHWM') }]));
  const phases: Phase[] = [];
  const timed = async (name: string, run: () => Promise<void>) => {
    const before = { ...fleet.counts };
    fleet.takeEventTypes();
    const t = performance.now();
    await run();
    const ms = performance.now() - t;
    phases.push({
      name,
      ms,
      events: fleet.counts.events - before.events,
      topEvents: [...fleet.takeEventTypes()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 3)
        .map(([t, n]) => `${t} ${n}`)
        .join(', '),
      writes: fleet.counts.writes - before.writes,
      memory: memory(),
    });
    progress(`${name}: ${fmt(ms / 1000)} s`);
  };

  await timed('fleet', () => applyBenchFleet(bus, client, CLUSTERS, IN_FLIGHT));
  await timed('schedule', () =>
    applyAndSchedule(bus, client, { objects: WORKLOADS, inFlight: IN_FLIGHT, timeoutMs: TIMEOUT_MS }),
  );

  const failing = new Set(Array.from({ length: FAIL }, (_, i) => benchCluster(i).metadata.name));
  const onFailing = fleet.bindingsOn(failing);
  // As `flotilla cluster fail|recover` does: the stored Cluster with its simulation changed, keeping the taints the
  // scheduler added.
  const setFailed = (failed: boolean) =>
    boundedRun(FAIL, FAIL, async (i) => {
      const { status: _status, ...c } = await client.get('Cluster', benchCluster(i).metadata.name);
      const spec = c.spec as { simulation: object };
      await client.apply({ ...c, spec: { ...spec, simulation: { ...spec.simulation, failed } } });
    });
  await timed('fail', async () => {
    await setFailed(true);
    await waitFor(
      () => [...failing].every((c) => fleet.tainted.has(c)) && fleet.bindingsOn(failing) === 0,
      `the ${FAIL} failed clusters tainted and emptied (tainted ${[...failing].filter((c) => fleet.tainted.has(c)).length}, bindings still on them ${fleet.bindingsOn(failing)})`,
      TIMEOUT_MS,
      100,
    );
  });
  await timed('recover', async () => {
    await setFailed(false);
    await waitFor(
      () => [...failing].every((c) => !fleet.tainted.has(c)),
      `the ${FAIL} clusters untainted`,
      TIMEOUT_MS,
      100,
    );
  });
  await timed('quiet', () => new Promise((r) => setTimeout(r, QUIET_MS)));

  const rate = (n: number, ms: number) => `${fmt(n / (ms / 1000))}/s`;
  const peak = (n: string) => Math.max(...phases.map((p) => p.memory[n]!.peak));
  report(
    `the fleet at scale: ${CLUSTERS} simulated clusters, ${WORKLOADS} Deployments (Divided, dynamic weight), ${FAIL} clusters failed and recovered (failover grace ${FAILOVER_GRACE_MS} ms)`,
    [
      ...phases.map((p): [string, string] => [
        p.name,
        `${fmt(p.ms / 1000)} s; events ${p.events} (${rate(p.events, p.ms)}${p.topEvents ? `: ${p.topEvents}` : ''}), object writes ${p.writes} (${rate(p.writes, p.ms)})`,
      ]),
      ['bindings on the failed clusters', `${onFailing} before the failure, 0 after it`],
      ...SERVICES.map((n): [string, string] => [
        `${n} MiB`,
        `${phases.map((p) => `${p.name} ${fmt(p.memory[n]!.rss)}`).join(', ')}; peak ${fmt(peak(n))}  (target <= 150 MB: ${peak(n) * 1.048576 <= 150 ? 'met' : 'missed'})`,
      ]),
    ],
  );
} finally {
  await fleet.close();
  await bus.close();
  await s.stop();
}
