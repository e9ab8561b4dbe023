// The kube driver's figures (issue 17), against one real control plane (etcd + kube-apiserver from Kubernetes' Go
// modules, started by @flotilla/testkit/kube):
// 1. the agent applying BENCH_KUBE_WORKLOADS (1,000) Deployments to one cluster vs bare @kubernetes/client-node
//    server-side applies of the same objects in the same run, with the same number of writes in flight
//    (target >= 80 %);
// 2. resident memory of the member-agent process (MEMBER_DRIVER=kube) watching BENCH_KUBE_PODS (10,000) pods
//    (target <= 150 MB);
// 3. the member API server stopped -> Cluster NotReady reported within KUBE_FAILURE_THRESHOLD_MS + 1 s.
import { connectBus, EventTypes, readEvents } from '@flotilla/bus';
import { systemClock } from '@flotilla/runtime';
import { NATS_URL } from '@flotilla/testkit';
import { ObjectStore, type StoredObject } from '@flotilla/store';
import { startKubeCluster } from '@flotilla/testkit/kube';
import { KubeConfig, KubernetesObjectApi, PatchStrategy, type KubernetesObject } from '@kubernetes/client-node';
import { clientNodeApi, KubeDriver, mapLimited, type ClusterStatusReportedData } from '@flotilla/member-agent';
import { startSuite } from '../test/support/suite.js';
import { fmt, report, rssOfPidMb, waitFor, withBenchBus } from './support.js';

const WORKLOADS = Number(process.env.BENCH_KUBE_WORKLOADS ?? 1000);
const PODS = Number(process.env.BENCH_KUBE_PODS ?? 10_000);
const IN_FLIGHT = Number(process.env.BENCH_KUBE_IN_FLIGHT ?? 8);
const THRESHOLD_MS = Number(process.env.BENCH_KUBE_THRESHOLD_MS ?? 2000);
/** Which figures to measure (BENCH_KUBE_PARTS=apply,notready,memory; default all). */
const PARTS = new Set((process.env.BENCH_KUBE_PARTS ?? 'apply,notready,memory').split(','));
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

const cluster = await startKubeCluster({ name: 'bench-kube', controlPlaneOnly: true });
try {
  const kc = new KubeConfig();
  kc.loadFromFile(cluster.kubeconfigPath);
  const objects = kc.makeApiClient(KubernetesObjectApi);
  const kubectl = async (args: string[]) => {
    const r = await cluster.kubectl(args);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
  };
  for (const ns of ['bench-bare', 'bench-agent']) await kubectl(['create', 'namespace', ns]);

  // 1. Bare server-side applies, then the agent, on the same server.
  if (PARTS.has('apply')) {
    const bareStart = performance.now();
    const bare = await mapLimited(
      Array.from({ length: WORKLOADS }, (_, i) => deployment('bench-bare', i)),
      IN_FLIGHT,
      (o) => objects.patch(o as KubernetesObject, undefined, undefined, 'bench', true, PatchStrategy.ServerSideApply),
    );
    const bareMs = performance.now() - bareStart;
    if (bare.some((r) => r.status === 'rejected')) throw new Error('a bare apply failed');

    const agentMs = await withBenchBus('kube-apply', async (bus) => {
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
      const driver = new KubeDriver({
        clusterName: 'bench',
        api: clientNodeApi({ cluster: 'bench', kubeconfig: cluster.kubeconfigPath }),
        bus,
        clock: systemClock,
        logger: quiet,
        pollMs: 60_000,
        failureThresholdMs: 30_000,
        resyncMs: 600_000,
        // the same writes in flight as the bare run; the rate limit out of the way (it is client-go's, not a cost)
        writes: { qps: 1e6, burst: 1e6, concurrency: IN_FLIGHT },
      });
      // start() lists the bindings, probes, starts the informers and runs the first reconcile: the applies and the
      // reports of every workload to NATS are inside the measured time.
      const t0 = performance.now();
      await driver.start();
      const ms = performance.now() - t0;
      const sent = driver.writesSent;
      await driver.stop();
      if (sent < WORKLOADS) throw new Error(`the agent sent ${sent} writes for ${WORKLOADS} workloads`);
      return ms;
    });
    const ratio = bareMs / agentMs;
    report(
      `kube driver: ${WORKLOADS} Deployments server-side applied to one real kube-apiserver, ${IN_FLIGHT} in flight`,
      [
        ['bare client-node SSA', `${fmt(bareMs)} ms  (${fmt((WORKLOADS * 1000) / bareMs)}/s)`],
        [
          'member-agent (kube driver)',
          `${fmt(agentMs)} ms  (${fmt((WORKLOADS * 1000) / agentMs)}/s), incl. reports to NATS`,
        ],
        ['agent / bare throughput', `${fmt(ratio * 100)} %  (target >= 80 %: ${ratio >= 0.8 ? 'met' : 'missed'})`],
      ],
    );
  }

  // 3. NotReady within the threshold + 1 s (an in-process agent; it measures the driver, not process start-up).
  // Counted from the moment kube-apiserver has exited: while it shuts down gracefully it still answers.
  if (PARTS.has('notready')) {
    const notReadyMs = await withBenchBus('kube-notready', async (bus) => {
      const driver = new KubeDriver({
        clusterName: 'bench',
        api: clientNodeApi({ cluster: 'bench', kubeconfig: cluster.kubeconfigPath, probeTimeoutMs: 1000 }),
        bus,
        clock: systemClock,
        logger: quiet,
        pollMs: 1000,
        failureThresholdMs: THRESHOLD_MS,
        managedKinds: [],
      });
      await driver.start();
      await cluster.stopApiServer();
      const t0 = Date.now();
      let at: number | undefined;
      await waitFor(
        async () => {
          for await (const d of readEvents(bus, {
            filter: { kind: 'Cluster', name: 'bench', type: EventTypes.ClusterStatusReported },
          }))
            if ((d.event.data as ClusterStatusReportedData).statusPatch.conditions[0]!.status === 'False')
              at = Date.parse(d.event.time!);
          return at !== undefined;
        },
        'NotReady',
        THRESHOLD_MS + 30_000,
      );
      await driver.stop();
      await cluster.startApiServer();
      return at! - t0;
    });
    report('kube driver: member API server stopped -> Cluster NotReady', [
      ['failure threshold', `${THRESHOLD_MS} ms`],
      [
        'NotReady reported after',
        `${notReadyMs} ms  (target <= threshold + 1000 ms: ${notReadyMs <= THRESHOLD_MS + 1000 ? 'met' : 'missed'})`,
      ],
    ]);
  }

  // 2. The member-agent process watching PODS pods (unbound: no scheduler runs here; each is listed and watched).
  if (PARTS.has('memory')) {
    await kubectl(['create', 'namespace', 'bench-pods']);
    await kubectl(['create', 'serviceaccount', 'default', '-n', 'bench-pods']);
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
    const createdMs = performance.now() - podStart;
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
          async () => {
            for await (const d of readEvents(bus, {
              filter: { kind: 'Cluster', name: 'bench', type: EventTypes.ClusterStatusReported },
            }))
              if (
                (d.event.data as ClusterStatusReportedData).statusPatch.resourceSummary?.allocating.pods ===
                String(PODS)
              )
                return true;
            return false;
          },
          `the agent counting ${PODS} pods`,
          120_000,
          500,
        );
      } finally {
        await bus.close();
      }
      await sleep(3000);
      const rss = rssOfPidMb(pid);
      const peak = rssOfPidMb(pid, 'VmHWM');
      report(`kube driver: member-agent process watching ${PODS} pods (created in ${fmt(createdMs / 1000)} s)`, [
        ['VmRSS / VmHWM (MiB)', `${fmt(rss)} / ${fmt(peak)}`],
        ['target <= 150 MB', peak * 1.048576 <= 150 ? 'met' : 'missed'],
      ]);
    } finally {
      await s.stop();
    }
  }
} finally {
  await cluster.stop();
}
