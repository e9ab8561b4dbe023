// One scheduler replica against two active ones (SCHEDULER_REPLICAS=active), end to end, in one sitting: for each
// count a fresh prefix with the gateway, the status-writer, the sim member-agent (BENCH_CLUSTERS clusters) and the
// schedulers as processes; BENCH_BINDINGS Deployments applied through the gateway, BENCH_IN_FLIGHT at a time; the
// rate is the Deployments over the time from the first apply to the last binding's first BindingScheduled (a core
// NATS subscription on the event subjects). One replica runs as today (SCHEDULER_REPLICAS=leader). The rounds
// alternate 1, 2, 2, 1, … so that a machine's drift falls on both. BENCH_NATS=cluster runs the same on a 3-node
// JetStream cluster with streams and buckets at R3 (PrivateNatsCluster) instead of the one server at NATS_URL.
import { connectBus, parseEventSubject } from '@flotilla/bus';
import { GatewayClient } from '@flotilla/client';
import { NATS_URL, PrivateNatsCluster } from '@flotilla/testkit';
import { loadavg } from 'node:os';
import { startSuite } from '../test/support/suite.js';
import {
  applyBenchFleet,
  benchDeployment,
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

interface Round {
  replicas: number;
  rate: number;
  applyRate: number;
  schedulerCpuS: number[];
  load: number;
}

async function round(replicas: number, natsUrl: string, natsEnv: Record<string, string>): Promise<Round> {
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
    await applyBenchFleet(bus, client, CLUSTERS, IN_FLIGHT);
    const cpuBefore = schedulers.map((p) => cpuOfPidSeconds(p.child.pid));
    const t0 = performance.now();
    await boundedRun(BINDINGS, IN_FLIGHT, async (i) => void (await client.apply(benchDeployment(`burst-${i}`, i))));
    const applyMs = performance.now() - t0;
    await waitFor(
      () => scheduled.size >= BINDINGS,
      `${BINDINGS} bindings scheduled (have ${scheduled.size})`,
      TIMEOUT_MS,
    );
    await sub.drain();
    const result = {
      replicas,
      rate: BINDINGS / ((lastAt - t0) / 1000),
      applyRate: BINDINGS / (applyMs / 1000),
      schedulerCpuS: schedulers.map((p, i) => cpuOfPidSeconds(p.child.pid) - (cpuBefore[i] as number)),
      load,
    };
    progress(`${replicas} replica(s): ${fmt(result.rate)} bindings/s end to end (load ${load.toFixed(1)} at start)`);
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
    for (const n of r % 2 ? [2, 1] : [1, 2]) rounds.push(await round(n, natsUrl, natsEnv));
  const of = (n: number) => rounds.filter((x) => x.replicas === n);
  const one = median(of(1).map((x) => x.rate));
  const two = median(of(2).map((x) => x.rate));
  const ratio = two / one;
  const describe = (xs: Round[]) =>
    xs
      .map(
        (x) =>
          `${fmt(x.rate)}/s (applies ${fmt(x.applyRate)}/s; scheduler CPU ${x.schedulerCpuS.map((c) => `${fmt(c)} s`).join(' + ')}; load ${x.load.toFixed(1)})`,
      )
      .join(', ');
  report(
    `active scheduler replicas: ${BINDINGS} Deployments over ${CLUSTERS} simulated clusters end to end, ${IN_FLIGHT} applies in flight, NATS ${cluster ? '3-node cluster, R3' : 'one server'}`,
    [
      ['1 replica (leader mode)', describe(of(1))],
      ['2 active replicas', describe(of(2))],
      ['2 / 1', `${ratio.toFixed(2)}x  (floor >= ${FLOOR}x: ${ratio >= FLOOR ? 'met' : 'missed'})`],
    ],
  );
} finally {
  await cluster?.dispose();
}
