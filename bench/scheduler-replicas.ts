// One scheduler replica against two active ones (SCHEDULER_REPLICAS=active), in one sitting. For each count and
// phase a fresh prefix with the gateway, the status-writer, the sim member-agent (BENCH_CLUSTERS clusters) and the
// schedulers as processes, BENCH_BINDINGS Deployments applied through the gateway, BENCH_IN_FLIGHT at a time:
// - applied: the schedulers run while the Deployments are applied; the rate is the Deployments over the time from
//   the first apply to the last binding's first BindingScheduled (a core NATS subscription on the event subjects);
// - backlog: the schedulers run and the Deployments are all stored before the policy that selects them; the rate
//   is the Deployments over the time from the policy's apply to the last first BindingScheduled: the schedulers' own
//   capacity (detection, binding create, scheduling, event), with the gateway idle and their caches warm.
// One replica runs as today (SCHEDULER_REPLICAS=leader). Rounds alternate 1, 2, 2, 1, … so that a machine's drift
// falls on both. BENCH_NATS=cluster runs the same on a 3-node JetStream cluster with streams and buckets at R3
// (PrivateNatsCluster) instead of the one server at NATS_URL; BENCH_PHASES picks phases (default applied,backlog).
import { connectBus, parseEventSubject } from '@flotilla/bus';
import { GatewayClient } from '@flotilla/client';
import { NATS_URL, PrivateNatsCluster } from '@flotilla/testkit';
import { loadavg } from 'node:os';
import { startSuite } from '../test/support/suite.js';
import {
  applyBenchFleet,
  benchDeployment,
  benchPolicy,
  boundedRun,
  cpuOfPidSeconds,
  fmt,
  percentile,
  report,
  waitFor,
} from './support.js';

const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 100);
const BINDINGS = Number(process.env.BENCH_BINDINGS ?? 10_000);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 64);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 600_000);
const NATS = process.env.BENCH_NATS ?? 'server';
const LEASE_MS = process.env.BENCH_LEASE_MS ?? '10000';
/** The issue's floor: two replicas on two cores schedule at least 1.6 times as fast as one. */
const FLOOR = 1.6;
const progress = (msg: string) => console.error(`[scheduler-replicas] ${msg}`);

if (NATS !== 'server' && NATS !== 'cluster') throw new Error(`BENCH_NATS: expected server or cluster, got ${NATS}`);

type Phase = 'applied' | 'backlog';
const PHASES = (process.env.BENCH_PHASES ?? 'applied,backlog').split(',') as Phase[];
for (const p of PHASES)
  if (p !== 'applied' && p !== 'backlog') throw new Error(`BENCH_PHASES: expected applied and/or backlog, got ${p}`);

interface Round {
  phase: Phase;
  replicas: number;
  rate: number;
  applyRate: number;
  schedulerCpuS: number[];
  load: number;
}

async function round(phase: Phase, replicas: number, natsUrl: string, natsEnv: Record<string, string>): Promise<Round> {
  const load = loadavg()[0] as number;
  const s = await startSuite(['gateway', 'status-writer', 'member-agent'], {
    NATS_URL: natsUrl,
    ...natsEnv,
    LOG_LEVEL: 'warn',
    LEADER_LEASE_MS: LEASE_MS,
  });
  const bus = await connectBus({ url: natsUrl, prefix: s.env.FLOTILLA_PREFIX, name: 'bench-scheduler-replicas' });
  try {
    const mode = { SCHEDULER_REPLICAS: replicas > 1 ? 'active' : 'leader' };
    for (let i = 0; i < replicas; i++) await s.suite.startService('affinity-scheduler', mode);
    const schedulers = s.suite.processes.filter((p) => p.name === 'affinity-scheduler');
    const client = new GatewayClient(bus.nc, { apiRoot: bus.names.apiRoot, timeoutMs: 60_000 });
    const root = bus.names.eventsRoot;
    const scheduled = new Set<string>();
    let lastAt = 0;
    const sub = bus.nc.subscribe(`${root}.ResourceBinding.*.*.BindingScheduled`, {
      callback: (err, msg) => {
        if (err) return;
        const name = parseEventSubject(root, msg.subject).name;
        if (!name.startsWith('burst-') || scheduled.has(name)) return;
        scheduled.add(name);
        lastAt = performance.now();
      },
    });
    await applyBenchFleet(bus, client, CLUSTERS, IN_FLIGHT, { policy: phase === 'applied' });
    const applyAll = async () => {
      const t = performance.now();
      await boundedRun(BINDINGS, IN_FLIGHT, async (i) => void (await client.apply(benchDeployment(`burst-${i}`, i))));
      return performance.now() - t;
    };
    const cpuBefore = () => schedulers.map((p) => cpuOfPidSeconds(p.child.pid));
    let cpu0 = cpuBefore();
    let t0 = performance.now();
    const applyMs = await applyAll();
    if (phase === 'backlog') {
      cpu0 = cpuBefore();
      t0 = performance.now();
      await client.apply(benchPolicy);
    }
    await waitFor(
      () => scheduled.size >= BINDINGS,
      `${BINDINGS} bindings scheduled (have ${scheduled.size})`,
      TIMEOUT_MS,
    );
    await sub.drain();
    const result = {
      phase,
      replicas,
      rate: BINDINGS / ((lastAt - t0) / 1000),
      applyRate: BINDINGS / (applyMs / 1000),
      schedulerCpuS: schedulers.map((p, i) => cpuOfPidSeconds(p.child.pid) - (cpu0[i] as number)),
      load,
    };
    progress(`${phase}, ${replicas} replica(s): ${fmt(result.rate)} bindings/s (load ${load.toFixed(1)} at start)`);
    return result;
  } finally {
    await bus.close();
    await s.stop();
  }
}

const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );

const cluster = NATS === 'cluster' ? await PrivateNatsCluster.start() : undefined;
// Interrupted: the services stop by themselves (their supervisor's IPC channel closes); the NATS nodes are ours to stop.
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    void (cluster?.dispose() ?? Promise.resolve()).finally(() => process.exit(130));
  });
try {
  const natsUrl = cluster?.url ?? NATS_URL;
  const natsEnv: Record<string, string> = cluster ? { NATS_REPLICAS: '3', NATS_TIMEOUT_MS: '2000' } : {};
  const rounds: Round[] = [];
  for (let r = 0; r < ROUNDS; r++)
    for (const phase of PHASES)
      for (const n of r % 2 ? [2, 1] : [1, 2]) rounds.push(await round(phase, n, natsUrl, natsEnv));
  const describe = (xs: Round[]) =>
    xs
      .map(
        (x) =>
          `${fmt(x.rate)}/s (applies ${fmt(x.applyRate)}/s; scheduler CPU ${x.schedulerCpuS.map((c) => `${fmt(c)} s`).join(' + ')}; load ${x.load.toFixed(1)})`,
      )
      .join(', ');
  const rows: Array<[string, string]> = [];
  for (const phase of PHASES) {
    const of = (n: number) => rounds.filter((x) => x.phase === phase && x.replicas === n);
    const ratio = median(of(2).map((x) => x.rate)) / median(of(1).map((x) => x.rate));
    rows.push(
      [`${phase}: 1 replica (leader mode)`, describe(of(1))],
      [`${phase}: 2 active replicas`, describe(of(2))],
      [`${phase}: 2 / 1`, `${ratio.toFixed(2)}x  (floor >= ${FLOOR}x: ${ratio >= FLOOR ? 'met' : 'missed'})`],
    );
  }
  report(
    `active scheduler replicas: ${BINDINGS} Deployments over ${CLUSTERS} simulated clusters, ${IN_FLIGHT} applies in flight, NATS ${cluster ? '3-node cluster, R3' : 'one server'}`,
    rows,
  );
} finally {
  await cluster?.dispose();
}
