// One WorkloadRebalancer over BENCH_WORKLOADS workloads, in two set-ups, each on a fresh prefix:
// 1. alone: gateway, status-writer and rebalancer; the bindings are written to the store as the scheduler would have
//    left them (no scheduler reacts to the triggers, no member-agent follows the bindings);
// 2. the system: gateway, status-writer, member-agent (BENCH_CLUSTERS simulated clusters), affinity-scheduler and
//    rebalancer; the workloads are Deployments the scheduler placed (Divided, dynamic weight) before the rebalancer,
//    and it reschedules each one Fresh while the triggers are still being written.
// Measured from the gateway's acknowledgement of the rebalancer: until every binding carries its creationTimestamp
// (a core NATS subscription on the objects bucket's subjects), until its status (every workload Successful,
// finishTime) is in the status bucket, and in the system until the scheduler has announced a Fresh BindingScheduled
// for every binding; beside BENCH_WORKLOADS bare KV compare-and-sets of a binding-sized value (128 in flight, as
// REBALANCER_WRITE_CONCURRENCY) measured before and after in the same run; then the rebalancer's resident memory.
// BENCH_SELECTOR=1 names the workloads by one label selector instead of listing them.
import { admit } from '@flotilla/api';
import { connectBus, decodeJson, encodeJson, getJson, parseEventSubject, type Bus } from '@flotilla/bus';
import { GatewayClient } from '@flotilla/client';
import { ObjectStore, type StoredObject } from '@flotilla/store';
import { NATS_URL } from '@flotilla/testkit';
import { startSuite, type RunningSuite } from '../test/support/suite.js';
import { applyBenchFleet, benchDeployment, boundedRun, fmt, report, rssOfPidMb, waitFor } from './support.js';

// 40 clusters (4,800 cpu of allocatable, bench/support's shapes) hold 10,000 bench Deployments (about 3,000 cpu
// requested) with room to spare; since the scheduler no longer overcommits, 20 (2,400 cpu) left a fifth unplaced
// and the full-system phase waited for them until it timed out.
const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 40);
const WORKLOADS = Number(process.env.BENCH_WORKLOADS ?? 10_000);
const IN_FLIGHT = 128;
const SELECTOR = process.env.BENCH_SELECTOR === '1';
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 600_000);
const progress = (msg: string) => console.error(`[rebalance] ${msg}`);
const name = (i: number) => `w${i}`;

/** Milliseconds for `n` bare KV compare-and-set updates (keys created first), IN_FLIGHT at a time. */
async function bareCasMs(bus: Bus, n: number, round: number, payload: Uint8Array): Promise<number> {
  const key = (i: number) => `BenchCas._.r${round}-${i}`;
  const revisions: number[] = new Array(n);
  await boundedRun(n, IN_FLIGHT, async (i) => {
    revisions[i] = await bus.objects.create(key(i), payload);
  });
  const t = performance.now();
  await boundedRun(n, IN_FLIGHT, async (i) => {
    await bus.objects.update(key(i), payload, revisions[i]!);
  });
  return performance.now() - t;
}

interface Measured {
  casMs: number;
  casBeforeMs: number;
  casAfterMs: number;
  payloadBytes: number;
  triggeredMs: number;
  statusMs: number;
  freshMs?: number;
  rssNow: number;
  rssPeak: number;
  passLog?: string;
}

/** Creates the rebalancer on a suite whose bindings exist, and measures it (see the file comment). */
async function measure(s: RunningSuite, bus: Bus, fresh?: { count(): number; lastAt(): number }): Promise<Measured> {
  const client = new GatewayClient(bus.nc, { apiRoot: bus.names.apiRoot, timeoutMs: 60_000 });
  const pid = s.suite.processes.find((p) => p.name === 'rebalancer')?.child.pid;
  const sample = await getJson(bus.objects, `ResourceBinding.default.${name(0)}-deployment`);
  const payload = encodeJson(sample!.value);
  const casBeforeMs = await bareCasMs(bus, WORKLOADS, 0, payload);

  // When each binding first carried each trigger time: the rebalancer may write every trigger before the gateway's
  // answer tells this bench the rebalancer's creationTimestamp (a smoke size, a busy machine), so nothing is dropped
  // for not being known yet.
  const triggers = new Map<string, Map<string, number>>();
  const triggersAt = (at: string) => triggers.get(at) ?? new Map<string, number>();
  let createdAt = '';
  const writes = bus.nc.subscribe(`$KV.${bus.names.objectsBucket}.ResourceBinding.>`, {
    callback: (err, msg) => {
      if (err || !msg.data.length) return;
      const at = decodeJson<{ spec: { rescheduleTriggeredAt?: string } }>(msg.data).spec.rescheduleTriggeredAt;
      if (at === undefined) return;
      const first = triggersAt(at);
      if (!first.has(msg.subject)) first.set(msg.subject, performance.now());
      triggers.set(at, first);
    },
  });
  const workloads = Array.from({ length: WORKLOADS }, (_, i) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    name: name(i),
    namespace: 'default',
  }));
  const spec = SELECTOR
    ? { workloadSelectors: [{ namespace: 'default', labelSelector: { matchLabels: { bench: 'e2e' } } }] }
    : { workloads };
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssOfPidMb(pid))), 100);
  const t0 = performance.now();
  const created = await client.apply({
    apiVersion: 'apps.karmada.io/v1alpha1',
    kind: 'WorkloadRebalancer',
    metadata: { name: 'bench' },
    spec,
  });
  createdAt = created.object.metadata.creationTimestamp as string;

  await waitFor(
    () => triggersAt(createdAt).size >= WORKLOADS,
    `${WORKLOADS} bindings triggered (have ${triggersAt(createdAt).size})`,
    TIMEOUT_MS,
  );
  const triggeredMs = Math.max(...triggersAt(createdAt).values()) - t0;
  type Status = { observedWorkloads?: Array<{ result?: string }>; finishTime?: string };
  await waitFor(
    async () => {
      const st = (await getJson<{ status: Status }>(bus.status, 'WorkloadRebalancer._.bench'))?.value.status;
      return (
        Boolean(st?.finishTime) && st!.observedWorkloads?.filter((o) => o.result === 'Successful').length === WORKLOADS
      );
    },
    'the status with every workload Successful',
    TIMEOUT_MS,
    20,
  );
  const statusMs = performance.now() - t0;
  progress(`triggered in ${fmt(triggeredMs)} ms, status written at ${fmt(statusMs)} ms`);
  let freshMs: number | undefined;
  if (fresh) {
    await waitFor(
      () => fresh.count() >= WORKLOADS,
      `${WORKLOADS} Fresh reschedulings (have ${fresh.count()})`,
      TIMEOUT_MS,
      100,
    );
    freshMs = fresh.lastAt() - t0;
  }
  await new Promise((r) => setTimeout(r, 2000));
  clearInterval(sampler);
  await writes.drain();
  const casAfterMs = await bareCasMs(bus, WORKLOADS, 1, payload);
  return {
    casMs: (casBeforeMs + casAfterMs) / 2,
    casBeforeMs,
    casAfterMs,
    payloadBytes: payload.length,
    triggeredMs,
    statusMs,
    ...(freshMs !== undefined ? { freshMs } : {}),
    rssNow: rssOfPidMb(pid),
    rssPeak: Math.max(peak, rssOfPidMb(pid, 'VmHWM')),
    passLog: s.logs.find((l) => l.includes('rebalance pass')),
  };
}

function rows(m: Measured): Array<[string, string]> {
  const pass = m.passLog
    ? (JSON.parse(m.passLog.slice(m.passLog.indexOf('{'))) as { decideAndWriteMs: number; ms: number })
    : undefined;
  return [
    [
      'bare KV CAS',
      `${fmt(m.casMs)} ms for ${WORKLOADS} (before ${fmt(m.casBeforeMs)}, after ${fmt(m.casAfterMs)}; ${IN_FLIGHT} in flight, ${m.payloadBytes} B values)`,
    ],
    [
      'every binding triggered',
      `${fmt(m.triggeredMs)} ms = ${(m.triggeredMs / m.casMs).toFixed(2)}x bare CAS  (target <= 2x)`,
    ],
    [
      'status written (all Successful, finishTime)',
      `${fmt(m.statusMs)} ms = ${(m.statusMs / m.casMs).toFixed(2)}x bare CAS`,
    ],
    ...(pass
      ? [
          [
            "the rebalancer's pass",
            `${fmt(pass.decideAndWriteMs)} ms deciding and writing, ${fmt(pass.ms)} ms with its events published`,
          ] as [string, string],
        ]
      : []),
    ...(m.freshMs !== undefined
      ? [['Fresh rescheduling of every binding announced', `${fmt(m.freshMs)} ms`] as [string, string]]
      : []),
    ['rebalancer VmRSS', `${fmt(m.rssNow)} MiB at the end, peak ${fmt(m.rssPeak)} MiB  (target <= 150 MB)`],
  ];
}

const env = { LOG_LEVEL: 'info', SIM_TICK_MS: '1000', LEADER_LEASE_MS: '10000' };
const quiet = (s: RunningSuite) => s.logs.splice(0, s.logs.length - 2000);

// 1. alone
{
  const s = await startSuite(['gateway', 'status-writer', 'rebalancer'], env);
  const bus = await connectBus({ url: NATS_URL, prefix: s.env.FLOTILLA_PREFIX, name: 'bench-rebalance' });
  try {
    const store = new ObjectStore(bus);
    await boundedRun(WORKLOADS, 64, async (i) => {
      await store.apply(
        admit({
          apiVersion: 'work.karmada.io/v1alpha2',
          kind: 'ResourceBinding',
          metadata: { name: `${name(i)}-deployment`, namespace: 'default', labels: { bench: 'e2e' } },
          spec: {
            resource: { apiVersion: 'apps/v1', kind: 'Deployment', name: name(i), namespace: 'default' },
            replicas: 1 + (i % 5),
            clusters: [{ name: 'member-000', replicas: 1 + (i % 5) }],
          },
        }) as StoredObject,
      );
    });
    if (SELECTOR)
      await boundedRun(
        WORKLOADS,
        64,
        async (i) => void (await store.apply(admit(benchDeployment(name(i), i)) as StoredObject)),
      );
    await new Promise((r) => setTimeout(r, 2000));
    quiet(s);
    report(
      `rebalance, alone: one WorkloadRebalancer over ${WORKLOADS} bindings (${SELECTOR ? 'one label selector' : 'listed in spec.workloads'}); gateway, status-writer, rebalancer`,
      rows(await measure(s, bus)),
    );
  } finally {
    await bus.close();
    await s.stop();
  }
}

// 2. the system
{
  const s = await startSuite(['gateway', 'status-writer', 'member-agent', 'affinity-scheduler', 'rebalancer'], env);
  const bus = await connectBus({ url: NATS_URL, prefix: s.env.FLOTILLA_PREFIX, name: 'bench-rebalance' });
  try {
    const client = new GatewayClient(bus.nc, { apiRoot: bus.names.apiRoot, timeoutMs: 60_000 });
    const root = bus.names.eventsRoot;
    const scheduled = new Set<string>();
    const fresh = new Set<string>();
    let lastFreshAt = 0;
    const decisions = bus.nc.subscribe(`${root}.ResourceBinding.*.*.BindingScheduled`, {
      callback: (err, msg) => {
        if (err) return;
        const binding = parseEventSubject(root, msg.subject).name;
        scheduled.add(binding);
        if (decodeJson<{ data: { mode?: string } }>(msg.data).data.mode === 'Fresh' && !fresh.has(binding)) {
          fresh.add(binding);
          lastFreshAt = performance.now();
        }
      },
    });
    await applyBenchFleet(bus, client, CLUSTERS, 32);
    await boundedRun(WORKLOADS, 64, async (i) => void (await client.apply(benchDeployment(name(i), i))));
    await waitFor(
      () => scheduled.size >= WORKLOADS,
      `${WORKLOADS} bindings scheduled (have ${scheduled.size})`,
      TIMEOUT_MS,
      250,
    );
    progress(`${WORKLOADS} workloads scheduled over ${CLUSTERS} clusters`);
    // Fresh needs the trigger strictly after lastScheduledTime, in whole seconds.
    await new Promise((r) => setTimeout(r, 2000));
    quiet(s);
    const m = await measure(s, bus, { count: () => fresh.size, lastAt: () => lastFreshAt });
    await decisions.drain();
    const rss = (n: string) => rssOfPidMb(s.suite.processes.find((p) => p.name === n)?.child.pid);
    report(
      `rebalance, the system: the same over ${WORKLOADS} scheduled Deployments, ${CLUSTERS} simulated clusters; the scheduler reschedules while the triggers are written`,
      [
        ...rows(m),
        [
          'other services VmRSS',
          `gateway ${fmt(rss('gateway'))} MiB, status-writer ${fmt(rss('status-writer'))} MiB, affinity-scheduler ${fmt(rss('affinity-scheduler'))} MiB, member-agent ${fmt(rss('member-agent'))} MiB`,
        ],
      ],
    );
  } finally {
    await bus.close();
    await s.stop();
  }
}
