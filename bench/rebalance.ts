// One WorkloadRebalancer over BENCH_WORKLOADS workloads, end to end: gateway, status-writer, member-agent
// (BENCH_CLUSTERS simulated clusters), affinity-scheduler and rebalancer as processes on a fresh prefix. The
// workloads are Deployments scheduled (Divided, dynamic weight) before the rebalancer is created. Measured from the
// gateway's acknowledgement of the rebalancer:
// 1. until every binding carries its creationTimestamp (a core NATS subscription on the objects bucket's subjects),
//    and until its status (every workload Successful, finishTime) is in the status bucket;
// 2. until the scheduler has announced a Fresh BindingScheduled for every binding;
// beside BENCH_WORKLOADS bare KV compare-and-sets of a binding-sized value (128 in flight, as the rebalancer's
// REBALANCER_WRITE_CONCURRENCY), measured before and after in the same run; then the rebalancer's resident memory.
// BENCH_SELECTOR=1 names the workloads by one label selector instead of listing them.
import { connectBus, decodeJson, encodeJson, getJson, listJson, parseEventSubject, type Bus } from '@flotilla/bus';
import { GatewayClient } from '@flotilla/client';
import { NATS_URL } from '@flotilla/testkit';
import { startSuite } from '../test/support/suite.js';
import { benchCluster, benchDeployment, benchPolicy, boundedRun, fmt, report, rssOfPidMb, waitFor } from './support.js';

const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 20);
const WORKLOADS = Number(process.env.BENCH_WORKLOADS ?? 10_000);
const IN_FLIGHT = 128;
const SELECTOR = process.env.BENCH_SELECTOR === '1';
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 600_000);
const progress = (msg: string) => console.error(`[rebalance] ${msg}`);

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

const s = await startSuite(['gateway', 'status-writer', 'member-agent', 'affinity-scheduler', 'rebalancer'], { LOG_LEVEL: 'warn', SIM_TICK_MS: '1000', LEADER_LEASE_MS: '10000' });
progress(`suite up on prefix ${s.env.FLOTILLA_PREFIX}`);
const bus = await connectBus({ url: NATS_URL, prefix: s.env.FLOTILLA_PREFIX, name: 'bench-rebalance' });
try {
  const client = new GatewayClient(bus.nc, { apiRoot: bus.names.apiRoot, timeoutMs: 60_000 });
  const pid = s.suite.processes.find((p) => p.name === 'rebalancer')?.child.pid;
  const root = bus.names.eventsRoot;
  const name = (i: number) => `w${i}`;

  // Scheduled once (Steady), then Fresh after the trigger.
  const scheduled = new Set<string>();
  const fresh = new Set<string>();
  let lastFreshAt = 0;
  const decisions = bus.nc.subscribe(`${root}.ResourceBinding.*.*.BindingScheduled`, {
    callback: (err, msg) => {
      if (err) return;
      const binding = parseEventSubject(root, msg.subject).name;
      scheduled.add(binding);
      if ((decodeJson<{ data: { mode?: string } }>(msg.data).data.mode) === 'Fresh' && !fresh.has(binding)) {
        fresh.add(binding);
        lastFreshAt = performance.now();
      }
    },
  });
  await boundedRun(CLUSTERS, 32, async (i) => void (await client.apply(benchCluster(i))));
  await waitFor(async () => (await listJson(bus.js, bus.names.statusBucket, 'Cluster.>')).items.length >= CLUSTERS, `${CLUSTERS} cluster statuses`, 120_000, 250);
  await client.apply(benchPolicy);
  await boundedRun(WORKLOADS, 64, async (i) => void (await client.apply(benchDeployment(name(i), i))));
  await waitFor(() => scheduled.size >= WORKLOADS, `${WORKLOADS} bindings scheduled (have ${scheduled.size})`, TIMEOUT_MS, 250);
  progress(`${WORKLOADS} workloads scheduled over ${CLUSTERS} clusters`);
  // Fresh needs the trigger strictly after lastScheduledTime, in whole seconds.
  await new Promise((r) => setTimeout(r, 2000));

  const sample = await getJson(bus.objects, `ResourceBinding.default.${name(0)}-deployment`);
  const payload = encodeJson(sample!.value);
  const casBeforeMs = await bareCasMs(bus, WORKLOADS, 0, payload);

  // Every binding's trigger, seen on the objects bucket's own subjects.
  const triggered = new Set<string>();
  let lastTriggerAt = 0;
  let createdAt = '';
  const kvPrefix = `$KV.${bus.names.objectsBucket}.`;
  const writes = bus.nc.subscribe(`${kvPrefix}ResourceBinding.>`, {
    callback: (err, msg) => {
      if (err || !msg.data.length || !createdAt) return;
      const at = decodeJson<{ spec: { rescheduleTriggeredAt?: string } }>(msg.data).spec.rescheduleTriggeredAt;
      if (at === createdAt && !triggered.has(msg.subject)) {
        triggered.add(msg.subject);
        lastTriggerAt = performance.now();
      }
    },
  });
  const workloads = Array.from({ length: WORKLOADS }, (_, i) => ({ apiVersion: 'apps/v1', kind: 'Deployment', name: name(i), namespace: 'default' }));
  const spec = SELECTOR ? { workloadSelectors: [{ namespace: 'default', labelSelector: { matchLabels: { bench: 'e2e' } } }] } : { workloads };
  const t0 = performance.now();
  const created = await client.apply({ apiVersion: 'apps.karmada.io/v1alpha1', kind: 'WorkloadRebalancer', metadata: { name: 'bench' }, spec });
  createdAt = created.object.metadata.creationTimestamp as string;
  let peakDuring = 0;
  const sampler = setInterval(() => (peakDuring = Math.max(peakDuring, rssOfPidMb(pid))), 100);

  await waitFor(() => triggered.size >= WORKLOADS, `${WORKLOADS} bindings triggered (have ${triggered.size})`, TIMEOUT_MS);
  const triggeredMs = lastTriggerAt - t0;
  type Status = { observedWorkloads?: Array<{ result?: string }>; finishTime?: string };
  await waitFor(
    async () => {
      const st = (await getJson<{ status: Status }>(bus.status, 'WorkloadRebalancer._.bench'))?.value.status;
      return Boolean(st?.finishTime) && st!.observedWorkloads?.filter((o) => o.result === 'Successful').length === WORKLOADS;
    },
    'the status with every workload Successful',
    TIMEOUT_MS,
    20,
  );
  const statusMs = performance.now() - t0;
  progress(`triggered in ${fmt(triggeredMs)} ms, status written at ${fmt(statusMs)} ms; waiting for the Fresh rescheduling`);
  await waitFor(() => fresh.size >= WORKLOADS, `${WORKLOADS} Fresh reschedulings (have ${fresh.size})`, TIMEOUT_MS, 100);
  const freshMs = lastFreshAt - t0;
  clearInterval(sampler);
  await new Promise((r) => setTimeout(r, 2000));
  const rssNow = rssOfPidMb(pid);
  const rssPeak = rssOfPidMb(pid, 'VmHWM');
  await writes.drain();
  await decisions.drain();
  const casAfterMs = await bareCasMs(bus, WORKLOADS, 1, payload);
  const casMs = (casBeforeMs + casAfterMs) / 2;

  report(`rebalance: one WorkloadRebalancer over ${WORKLOADS} Deployments (${SELECTOR ? 'one label selector' : 'listed in spec.workloads'}), ${CLUSTERS} simulated clusters`, [
    ['bare KV CAS', `${fmt(casMs)} ms for ${WORKLOADS} (before ${fmt(casBeforeMs)}, after ${fmt(casAfterMs)}; ${IN_FLIGHT} in flight, ${payload.length} B values)`],
    ['every binding triggered', `${fmt(triggeredMs)} ms = ${(triggeredMs / casMs).toFixed(2)}x bare CAS  (target <= 2x)`],
    ['status written (all Successful, finishTime)', `${fmt(statusMs)} ms = ${(statusMs / casMs).toFixed(2)}x bare CAS  (target <= 2x)`],
    ['Fresh rescheduling of every binding announced', `${fmt(freshMs)} ms`],
    ['rebalancer VmRSS', `${fmt(rssNow)} MiB at the end, peak ${fmt(Math.max(rssPeak, peakDuring))} MiB (VmHWM)  (target <= 150 MB)`],
    ['other services VmRSS', ['gateway', 'status-writer', 'affinity-scheduler'].map((n) => `${n} ${fmt(rssOfPidMb(s.suite.processes.find((p) => p.name === n)?.child.pid))} MiB`).join(', ')],
  ]);
} finally {
  await bus.close();
  await s.stop();
}
