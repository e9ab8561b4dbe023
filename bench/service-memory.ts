// Resident memory of every service (issues 2 and 3; target <= 150 MB each at 10,000 objects), read from
// /proc/<pid>/status of the real processes: VmRSS now and VmHWM, the peak since the process started.
// 1. idle, on a fresh prefix;
// 2. holding the objects: BENCH_CLUSTERS simulated clusters, one Divided policy and BENCH_OBJECTS Deployments applied
//    through the gateway, every binding scheduled (its BindingScheduled seen) and the simulation settled;
// 3. after a restart of each service in turn, so that it starts by listing everything already stored: the
//    informers' initial list is the peak a restarted replica (or a new leader) must fit in.
import { connectBus } from '@flotilla/bus';
import { GatewayClient } from '@flotilla/client';
import { NATS_URL } from '@flotilla/testkit';
import { startSuite } from '../test/support/suite.js';
import { applyAndSchedule, benchCluster, benchPolicy, boundedRun, fmt, report, rssOfPidMb } from './support.js';

const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 100);
const OBJECTS = Number(process.env.BENCH_OBJECTS ?? 10_000);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 64);
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 5000);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 600_000);
const SERVICES = ['gateway', 'status-writer', 'member-agent', 'affinity-scheduler'];
const TARGET_MB = 150;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// The services' default lease (the test suite's 2 s one is lost whenever a busy scheduler blocks its loop that long).
const s = await startSuite(SERVICES, { LOG_LEVEL: 'warn', LEADER_LEASE_MS: process.env.BENCH_LEASE_MS ?? '10000' });
const bus = await connectBus({ url: NATS_URL, prefix: s.env.FLOTILLA_PREFIX, name: 'bench-memory' });
try {
  const client = new GatewayClient(bus.nc, { apiRoot: bus.names.apiRoot, timeoutMs: 60_000 });
  // The newest process of a service: a restarted one replaces its predecessor.
  const pidOf = (name: string) => s.suite.processes.filter((p) => p.name === name).at(-1)?.child.pid;
  const sample = () =>
    Object.fromEntries(SERVICES.map((n) => [n, { rss: rssOfPidMb(pidOf(n)), peak: rssOfPidMb(pidOf(n), 'VmHWM') }]));

  await sleep(SETTLE_MS);
  const idle = sample();

  await boundedRun(CLUSTERS, IN_FLIGHT, async (i) => void (await client.apply(benchCluster(i))));
  await client.apply(benchPolicy);
  await applyAndSchedule(bus, client, { objects: OBJECTS, inFlight: IN_FLIGHT, timeoutMs: TIMEOUT_MS });
  // Several simulation ticks: the member-agent places the pods and reports every workload.
  await sleep(SETTLE_MS);
  const holding = sample();

  const restarted: Record<string, { rss: number; peak: number }> = {};
  for (const name of SERVICES) {
    const old = s.suite.processes.filter((p) => p.name === name).at(-1)!;
    old.child.kill('SIGTERM');
    await old.exited;
    await s.suite.startService(name);
    // Ready comes before the informers' first list is done (and before a leader is elected): give it time.
    await sleep(SETTLE_MS);
    restarted[name] = { rss: rssOfPidMb(pidOf(name)), peak: rssOfPidMb(pidOf(name), 'VmHWM') };
  }

  const cell = (m: { rss: number; peak: number } | undefined) => (m ? `${fmt(m.rss)} (peak ${fmt(m.peak)})` : '-');
  // procfs counts KiB, the target is in MB (10^6 bytes)
  const verdict = (n: string) =>
    Math.max(holding[n]!.peak, restarted[n]!.peak) * 1.048576 <= TARGET_MB ? 'met' : 'missed';
  report(
    `service memory, MiB (VmRSS, and VmHWM peak): ${CLUSTERS} simulated clusters, ${OBJECTS} Deployments and their bindings  (target <= ${TARGET_MB} MB each)`,
    [
      ['service', 'idle                  holding               after restart         target'],
      ...SERVICES.map((n): [string, string] => [
        n,
        `${cell(idle[n]).padEnd(22)}${cell(holding[n]).padEnd(22)}${cell(restarted[n]).padEnd(22)}${verdict(n)}`,
      ]),
    ],
  );
} finally {
  await bus.close();
  await s.stop();
}
