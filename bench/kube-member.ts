// The kube driver's figures (issue 17), against one real control plane (etcd + kube-apiserver from Kubernetes' Go
// modules, started by @flotilla/testkit/kube), each printed beside its floor:
// 1. the agent applying BENCH_KUBE_WORKLOADS (1,000) Deployments to one cluster vs bare @kubernetes/client-node
//    server-side applies of the same objects in the same run, with the same number of writes in flight
//    (target >= 80 %). Also: the same bare applies over kept-alive connections (what the driver uses), and the CPU
//    each side spent per object, in this process and in kube-apiserver + etcd (robust where the machine is busy);
// 2. resident memory of the member-agent process (MEMBER_DRIVER=kube) watching BENCH_KUBE_PODS (10,000) pods
//    (target <= 150 MB), beside the same process watching none;
// 3. the member API server stopped -> Cluster NotReady reported within KUBE_FAILURE_THRESHOLD_MS + 1 s (Karmada's
//    `--cluster-failure-threshold`: the grace a cluster's probes may fail before it is not Ready), with the
//    agent's defaults for probing and the threshold.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { connectBus, EventTypes, readEvents, type Bus } from '@flotilla/bus';
import { systemClock } from '@flotilla/runtime';
import { NATS_URL } from '@flotilla/testkit';
import { ObjectStore, type StoredObject } from '@flotilla/store';
import { startKubeCluster, type KubeCluster } from '@flotilla/testkit/kube';
import { KubeConfig, KubernetesObjectApi, PatchStrategy, type KubernetesObject } from '@kubernetes/client-node';
import {
  clientNodeApi,
  KubeDriver,
  loadKubeConfig,
  mapLimited,
  type ClusterStatusReportedData,
} from '@flotilla/member-agent';
import { startSuite } from '../test/support/suite.js';
import { fmt, report, rssOfPidMb, waitFor, withBenchBus } from './support.js';

const WORKLOADS = Number(process.env.BENCH_KUBE_WORKLOADS ?? 1000);
const PODS = Number(process.env.BENCH_KUBE_PODS ?? 10_000);
/** Writes in flight on both sides: the agent's KUBE_WRITE_CONCURRENCY default. */
const IN_FLIGHT = Number(process.env.BENCH_KUBE_IN_FLIGHT ?? 8);
/** The agent's defaults (KUBE_POLL_MS, KUBE_FAILURE_THRESHOLD_MS). */
const POLL_MS = Number(process.env.BENCH_KUBE_POLL_MS ?? 10_000);
const THRESHOLD_MS = Number(process.env.BENCH_KUBE_THRESHOLD_MS ?? 30_000);
/** Which figures to measure (BENCH_KUBE_PARTS=apply,notready,memory; default all). */
const PARTS = new Set((process.env.BENCH_KUBE_PARTS ?? 'apply,notready,memory').split(','));
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const load = () =>
  `load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')}`;

/** Each figure with its floor, printed together at the end. */
const summary: Array<[string, string]> = [];

const deployment = (namespace: string, i: number): StoredObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: `w-${i}`, namespace, labels: { app: `w-${i}` } },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: `w-${i}` } },
    template: {
      metadata: { labels: { app: `w-${i}` } },
      spec: { containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '10m', memory: '16Mi' } } }] },
    },
  },
});

/** CPU time (ms) a process has used so far, from procfs; NaN where it cannot be read. */
function cpuOfPidMs(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux)
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

/** CPU used by this process and by the cluster's kube-apiserver + etcd while `fn` runs, and its wall time. */
async function measured<T>(
  cluster: KubeCluster,
  fn: () => Promise<T>,
): Promise<{ value: T; ms: number; selfCpuMs: number; serverCpuMs: number }> {
  const pids = (JSON.parse(readFileSync(join(cluster.dir, 'cluster.json'), 'utf8')) as { pids: Record<string, number> })
    .pids;
  const server = () => cpuOfPidMs(pids['kube-apiserver']) + cpuOfPidMs(pids.etcd);
  const self0 = process.cpuUsage();
  const server0 = server();
  const t0 = performance.now();
  const value = await fn();
  const ms = performance.now() - t0;
  const self = process.cpuUsage(self0);
  return { value, ms, selfCpuMs: (self.user + self.system) / 1000, serverCpuMs: server() - server0 };
}

async function clusterReports(bus: Bus): Promise<Array<{ data: ClusterStatusReportedData; time: number }>> {
  const out: Array<{ data: ClusterStatusReportedData; time: number }> = [];
  for await (const d of readEvents(bus, {
    filter: { kind: 'Cluster', name: 'bench', type: EventTypes.ClusterStatusReported },
  }))
    out.push({ data: d.event.data as ClusterStatusReportedData, time: Date.parse(d.event.time!) });
  return out;
}

const cluster = await startKubeCluster({ name: 'bench-kube', controlPlaneOnly: true });
try {
  const kubectl = async (args: string[]) => {
    const r = await cluster.kubectl(args);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
  };

  // 1. Bare server-side applies, then the agent, then bare again over kept-alive connections, on the same server.
  if (PARTS.has('apply')) {
    const loadBefore = load();
    for (const ns of ['bench-bare', 'bench-agent', 'bench-bare-pooled']) await kubectl(['create', 'namespace', ns]);
    const bareApplies = async (kc: KubeConfig, namespace: string) => {
      const objects = kc.makeApiClient(KubernetesObjectApi);
      const out = await mapLimited(
        Array.from({ length: WORKLOADS }, (_, i) => deployment(namespace, i)),
        IN_FLIGHT,
        (o) => objects.patch(o as KubernetesObject, undefined, undefined, 'bench', true, PatchStrategy.ServerSideApply),
      );
      if (out.some((r) => r.status === 'rejected')) throw new Error(`a bare apply to ${namespace} failed`);
    };
    // client-node as its users call it: a KubeConfig, the typed object API (a new connection per request).
    const plain = new KubeConfig();
    plain.loadFromFile(cluster.kubeconfigPath);
    const bare = await measured(cluster, () => bareApplies(plain, 'bench-bare'));

    const agent = await withBenchBus('kube-apply', async (bus) => {
      const store = new ObjectStore(bus);
      await mapLimited(
        Array.from({ length: WORKLOADS }, (_, i) => i),
        32,
        async (i) => {
          const d = deployment('bench-agent', i);
          await store.apply(d);
          await store.apply({
            apiVersion: 'work.karmada.io/v1alpha2',
            kind: 'ResourceBinding',
            metadata: { name: `w-${i}-deployment`, namespace: 'bench-agent' },
            spec: {
              resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'bench-agent', name: `w-${i}` },
              clusters: [{ name: 'bench', replicas: 2 }],
            },
          });
        },
      );
      const api = clientNodeApi({ cluster: 'bench', kubeconfig: cluster.kubeconfigPath });
      const driver = new KubeDriver({
        clusterName: 'bench',
        api,
        bus,
        clock: systemClock,
        logger: quiet,
        pollMs: 60_000,
        failureThresholdMs: 30_000,
        successThresholdMs: 30_000,
        resyncMs: 600_000,
        // the same writes in flight as the bare run; the rate limit out of the way (it is client-go's, not a cost)
        writes: { qps: 1e6, burst: 1e6, concurrency: IN_FLIGHT },
      });
      // start() lists the bindings, probes, starts the informers and runs the first reconcile: the applies and the
      // reports of every workload to NATS are inside the measured time.
      const m = await measured(cluster, () => driver.start());
      const sent = driver.writesSent;
      await driver.stop();
      api.close();
      if (sent < WORKLOADS) throw new Error(`the agent sent ${sent} writes for ${WORKLOADS} workloads`);
      return m;
    });

    const pooledConfig = loadKubeConfig(cluster.kubeconfigPath);
    const pooled = await measured(cluster, () => bareApplies(pooledConfig, 'bench-bare-pooled'));
    pooledConfig.destroy();

    const ratio = bare.ms / agent.ms;
    const row = (m: { ms: number; selfCpuMs: number; serverCpuMs: number }) =>
      `${fmt(m.ms)} ms  (${fmt((WORKLOADS * 1000) / m.ms)}/s); CPU per object: client ${fmt(m.selfCpuMs / WORKLOADS, 2)} ms, kube-apiserver + etcd ${fmt(m.serverCpuMs / WORKLOADS, 2)} ms`;
    report(
      `kube driver: ${WORKLOADS} Deployments server-side applied to one real kube-apiserver, ${IN_FLIGHT} in flight (${loadBefore} before, ${load()} after)`,
      [
        ['bare client-node SSA (floor)', row(bare)],
        ['member-agent (kube driver)', `${row(agent)}, incl. reports to NATS`],
        ['bare SSA, kept-alive conns', row(pooled)],
        ['agent / bare throughput', `${fmt(ratio * 100)} %  (target >= 80 %: ${ratio >= 0.8 ? 'met' : 'missed'})`],
        ['agent / bare, same conns', `${fmt((pooled.ms / agent.ms) * 100)} %`],
      ],
    );
    summary.push([
      `apply ${WORKLOADS} workloads (target >= 80 % of bare)`,
      `agent ${fmt((WORKLOADS * 1000) / agent.ms)}/s vs bare client-node ${fmt((WORKLOADS * 1000) / bare.ms)}/s: ${fmt(ratio * 100)} % (${ratio >= 0.8 ? 'met' : 'missed'})`,
    ]);
  }

  // 3. NotReady within the threshold + 1 s (an in-process agent; it measures the driver, not process start-up).
  // Counted from the moment kube-apiserver has exited (stopped). From SIGTERM to its exit (a few seconds of draining
  // open requests and watches) it already refuses new ones; a probe that falls in that window starts the threshold
  // early, one that does not leaves it to the watches breaking at the exit. Both times are printed.
  if (PARTS.has('notready')) {
    const loadBefore = load();
    const { sinceStop, sinceExit } = await withBenchBus('kube-notready', async (bus) => {
      const api = clientNodeApi({ cluster: 'bench', kubeconfig: cluster.kubeconfigPath });
      const driver = new KubeDriver({
        clusterName: 'bench',
        api,
        bus,
        clock: systemClock,
        logger: quiet,
        pollMs: POLL_MS,
        failureThresholdMs: THRESHOLD_MS,
        successThresholdMs: 30_000,
        // no periodic resync to fall back on: NotReady must come from the probes themselves
        resyncMs: 600_000,
        managedKinds: [],
      });
      await driver.start();
      await waitFor(async () => (await clusterReports(bus)).length > 0, 'the first cluster report', 30_000);
      const stopAt = Date.now();
      await cluster.stopApiServer();
      const exitAt = Date.now();
      let at: number | undefined;
      await waitFor(
        async () => {
          at = (await clusterReports(bus)).find((r) => r.data.statusPatch.conditions[0]!.status === 'False')?.time;
          return at !== undefined;
        },
        'NotReady',
        THRESHOLD_MS + POLL_MS + 30_000,
        100,
      );
      await driver.stop();
      api.close();
      await cluster.startApiServer();
      return { sinceStop: at! - stopAt, sinceExit: at! - exitAt };
    });
    const met = sinceExit <= THRESHOLD_MS + 1000;
    report(`kube driver: member API server stopped -> Cluster NotReady (${loadBefore} before, ${load()} after)`, [
      [
        'failure threshold (floor)',
        `${THRESHOLD_MS} ms  (probes every ${POLL_MS} ms, and at once when a watch breaks)`,
      ],
      ['NotReady reported after', `${sinceExit} ms from the exit of kube-apiserver (${sinceStop} ms from SIGTERM)`],
      ['target <= threshold + 1000 ms', met ? 'met' : 'missed'],
    ]);
    summary.push([
      'API server stopped -> NotReady (target <= threshold + 1 s)',
      `${sinceExit} ms after the exit vs threshold ${THRESHOLD_MS} ms: ${sinceExit - THRESHOLD_MS >= 0 ? '+' : ''}${sinceExit - THRESHOLD_MS} ms (${met ? 'met' : 'missed'})`,
    ]);
  }

  // 2. The member-agent process watching PODS pods (unbound: no scheduler runs here; each is listed and watched),
  // beside the same process watching none.
  if (PARTS.has('memory')) {
    const loadBefore = load();
    await kubectl(['create', 'namespace', 'bench-pods']);
    await kubectl(['create', 'serviceaccount', 'default', '-n', 'bench-pods']);
    const agentMemory = async (pods: number) => {
      const s = await startSuite(['member-agent'], {
        LOG_LEVEL: 'warn',
        MEMBER_DRIVER: 'kube',
        KUBE_CLUSTER_NAME: 'bench',
        KUBECONFIG: cluster.kubeconfigPath,
      });
      try {
        const pid = s.suite.processes.find((p) => p.name === 'member-agent')?.child.pid;
        const bus = await connectBus({ url: NATS_URL, prefix: s.env.FLOTILLA_PREFIX, name: 'bench-kube-rss' });
        try {
          await waitFor(
            async () =>
              (await clusterReports(bus)).some(
                (r) => r.data.statusPatch.resourceSummary?.allocating.pods === String(pods),
              ),
            `the agent counting ${pods} pods`,
            120_000,
            500,
          );
        } finally {
          await bus.close();
        }
        await sleep(3000);
        return { rss: rssOfPidMb(pid), peak: rssOfPidMb(pid, 'VmHWM') };
      } finally {
        await s.stop();
      }
    };
    const idle = await agentMemory(0);
    const creator = loadKubeConfig(cluster.kubeconfigPath);
    const objects = creator.makeApiClient(KubernetesObjectApi);
    const podStart = performance.now();
    await mapLimited(
      Array.from({ length: PODS }, (_, i) => i),
      32,
      (i) =>
        objects.create({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: `p-${i}`, namespace: 'bench-pods', labels: { app: `a-${i % 100}` } },
          spec: {
            automountServiceAccountToken: false,
            containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '10m', memory: '16Mi' } } }],
          },
        } as KubernetesObject),
    );
    creator.destroy();
    const createdMs = performance.now() - podStart;
    // started after the pods exist: it lists them all (the peak), then watches them
    const full = await agentMemory(PODS);
    const mb = (mib: number) => mib * 1.048576;
    const met = mb(full.peak) <= 150;
    report(
      `kube driver: member-agent process watching ${PODS} pods (created in ${fmt(createdMs / 1000)} s; ${loadBefore} before, ${load()} after)`,
      [
        ['watching 0 pods (floor)', `VmRSS ${fmt(idle.rss)} MiB, VmHWM ${fmt(idle.peak)} MiB`],
        [`watching ${PODS} pods`, `VmRSS ${fmt(full.rss)} MiB, VmHWM ${fmt(full.peak)} MiB (${fmt(mb(full.peak))} MB)`],
        ['target <= 150 MB (peak)', met ? 'met' : 'missed'],
      ],
    );
    summary.push([
      `resident memory watching ${PODS} pods (target <= 150 MB)`,
      `peak ${fmt(mb(full.peak))} MB, now ${fmt(mb(full.rss))} MB vs ${fmt(mb(idle.peak))} MB watching none (${met ? 'met' : 'missed'})`,
    ]);
  }
} finally {
  await cluster.stop();
}
if (summary.length) report('kube driver figures (issue 17), each beside its floor', summary);
