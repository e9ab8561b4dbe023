// Apply throughput through the gateway, with the real services as processes on a fresh prefix:
// - objects/s: BENCH_OBJECTS applies through GatewayClient over NATS request-reply, BENCH_IN_FLIGHT at a time;
// - apply-to-status latency: every BENCH_CLUSTER_EVERY-th object is a simulated Cluster, whose status the member-agent
//   reports (ClusterStatusReported) and the status writer folds into the status bucket. Measured from sending the
//   apply request until a watch on the status bucket sees the Cluster's first status record, so it includes the
//   member-agent's tick (SIM_TICK_MS, default here the service's own 1000 ms);
// - resident memory (VmRSS) of the gateway and the status writer once they have handled every object.
import { connectBus, KvWatchInclude } from '@flotilla/bus';
import { GatewayClient } from '@flotilla/client';
import { NATS_URL } from '@flotilla/testkit';
import { startSuite } from '../test/support/suite.js';
import { boundedRun, fmt, latencySummary, report, rssOfPidMb, waitFor } from './support.js';

const OBJECTS = Number(process.env.BENCH_OBJECTS ?? 10_000);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 64);
const CLUSTER_EVERY = Number(process.env.BENCH_CLUSTER_EVERY ?? 1);
const SIM_TICK_MS = process.env.BENCH_SIM_TICK_MS ?? '1000';
const STATUS_TIMEOUT_MS = Number(process.env.BENCH_STATUS_TIMEOUT_MS ?? 300_000);

const REGIONS = ['cn-north', 'cn-east', 'ap-east', 'eu-west', 'us-east'];
const isCluster = (i: number) => i % CLUSTER_EVERY === 0;
const nameOf = (i: number) => `bench-${String(i).padStart(5, '0')}`;

function objectFor(i: number): unknown {
  if (isCluster(i)) {
    return {
      apiVersion: 'cluster.karmada.io/v1alpha1',
      kind: 'Cluster',
      metadata: { name: nameOf(i), labels: { bench: 'apply', region: REGIONS[i % REGIONS.length]! } },
      spec: {
        syncMode: 'Push',
        region: REGIONS[i % REGIONS.length]!,
        simulation: { allocatable: { cpu: '16', memory: '64Gi', pods: '110' } },
      },
    };
  }
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: nameOf(i), namespace: 'default', labels: { bench: 'apply' } },
    data: { 'app.properties': `replicas=${i % 7}\nregion=${REGIONS[i % REGIONS.length]!}\n`, owner: 'bench' },
  };
}

const s = await startSuite(['gateway', 'status-writer', 'member-agent'], { LOG_LEVEL: 'warn', SIM_TICK_MS });
const bus = await connectBus({ url: NATS_URL, prefix: s.env.FLOTILLA_PREFIX, name: 'bench-apply' });
try {
  const client = new GatewayClient(bus.nc, { apiRoot: bus.names.apiRoot, timeoutMs: 30_000 });
  const pidOf = (name: string) => s.suite.processes.find((p) => p.name === name)?.child.pid;
  const idleRss = { gateway: rssOfPidMb(pidOf('gateway')), statusWriter: rssOfPidMb(pidOf('status-writer')) };

  // Started before the first apply so that no first status can be missed.
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  const watch = await bus.status.watch({ key: 'Cluster.>', include: KvWatchInclude.UpdatesOnly });
  void (async () => {
    for await (const e of watch) {
      const name = e.key.slice(e.key.lastIndexOf('.') + 1);
      const t = sentAt.get(name);
      if (t === undefined || e.operation !== 'PUT') continue;
      latencies.push(performance.now() - t);
      sentAt.delete(name); // first status only
    }
  })();

  const clusters = Array.from({ length: OBJECTS }, (_, i) => i).filter(isCluster).length;
  const outcomes = new Map<string, number>();
  const t0 = performance.now();
  await boundedRun(OBJECTS, IN_FLIGHT, async (i) => {
    const object = objectFor(i);
    if (isCluster(i)) sentAt.set(nameOf(i), performance.now());
    const r = await client.apply(object);
    outcomes.set(r.outcome, (outcomes.get(r.outcome) ?? 0) + 1);
  });
  const applyMs = performance.now() - t0;
  await waitFor(
    () => latencies.length >= clusters,
    `${clusters} cluster statuses (have ${latencies.length})`,
    STATUS_TIMEOUT_MS,
  );
  const allStatusMs = performance.now() - t0;
  watch.stop();

  // The figure is memory while holding the objects, after the burst's garbage had a moment to be collected.
  await new Promise((r) => setTimeout(r, 3000));
  const rss = {
    gateway: rssOfPidMb(pidOf('gateway')),
    statusWriter: rssOfPidMb(pidOf('status-writer')),
    memberAgent: rssOfPidMb(pidOf('member-agent')),
  };

  report(
    `apply through the gateway: ${OBJECTS} objects (${clusters} simulated Clusters, ${OBJECTS - clusters} ConfigMaps), ${IN_FLIGHT} in flight`,
    [
      ['outcomes', [...outcomes].map(([k, v]) => `${v} ${k}`).join(', ')],
      ['apply throughput', `${fmt(OBJECTS / (applyMs / 1000))} objects/s (${fmt(applyMs)} ms)`],
      [
        'apply-to-status latency',
        `${latencySummary(latencies)}  (request sent -> first Cluster status in the status bucket; member-agent tick ${SIM_TICK_MS} ms)`,
      ],
      ['every status written', `${fmt(allStatusMs)} ms after the first apply`],
      ['gateway VmRSS', `${fmt(rss.gateway)} MiB (idle ${fmt(idleRss.gateway)} MiB)  (target <= 150 MB)`],
      [
        'status-writer VmRSS',
        `${fmt(rss.statusWriter)} MiB (idle ${fmt(idleRss.statusWriter)} MiB)  (target <= 150 MB)`,
      ],
      ['member-agent VmRSS', `${fmt(rss.memberAgent)} MiB (simulating ${clusters} clusters; no target)`],
    ],
  );
} finally {
  await bus.close();
  await s.stop();
}
