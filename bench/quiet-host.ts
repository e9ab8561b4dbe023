// Issue 24, item 3: what a quiet system writes to the host. A host API server with deploy/crds/, one real member
// cluster (kube-apiserver, controller-manager, scheduler, kwok playing the kubelets, metrics-server) running
// BENCH_QUIET_WORKLOADS (50) idle Deployments whose pods use CPU, the suite (gateway, status-writer,
// affinity-scheduler, kube-bridge) and a kube member-agent. Once every binding and its status are on the host and
// the bridge has been idle a while, it counts for BENCH_QUIET_MS (60 s) while the pods' CPU usage moves a little
// (as real idle pods' usage does): the kube-bridge's writes to the host API server
// (`flotilla_kube_bridge_writes_total{side="host"}`) and the writes to Flotilla's objects and status buckets (their
// streams' last sequence). Issue 24 asks for 0 of each. The usage bucket's writes (the member-agent's latest usage per
// binding, which only the hpa-assigner reads) are printed beside them.
import { join } from 'node:path';
import { connectBus } from '@flotilla/bus';
import { NATS_URL } from '@flotilla/testkit';
import { type KubeCluster, startKubeCluster } from '@flotilla/testkit/kube';
import { scrapedSum, startKubeAgents, stopSuiteAndClusters } from '../test/support/kube-e2e.js';
import { ROOT, type RunningSuite, startSuite } from '../test/support/suite.js';
import { report, waitFor } from './support.js';

const WORKLOADS = Number(process.env.BENCH_QUIET_WORKLOADS ?? 50);
const QUIET_MS = Number(process.env.BENCH_QUIET_MS ?? 60_000);
/** How long the bridge's host writes must stand still before the quiet minute starts. */
const SETTLE_MS = Number(process.env.BENCH_QUIET_SETTLE_MS ?? 20_000);
/** BENCH_QUIET_USAGE_MOVES=0 keeps the pods' usage constant: the control run. */
const USAGE_MOVES = process.env.BENCH_QUIET_USAGE_MOVES !== '0';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const deployment = (name: string) => `apiVersion: apps/v1
kind: Deployment
metadata: { name: ${name}, namespace: default, labels: { quiet: "yes" } }
spec:
  replicas: 1
  selector: { matchLabels: { app: ${name} } }
  template:
    metadata: { labels: { app: ${name}, quiet: "yes" } }
    spec: { containers: [{ name: c, image: nginx, resources: { requests: { cpu: 100m, memory: 16Mi } } }] }
`;
const policy = `apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: { name: quiet, namespace: default }
spec:
  resourceSelectors: [{ apiVersion: apps/v1, kind: Deployment, labelSelector: { matchLabels: { quiet: "yes" } } }]
  placement: { clusterAffinity: { clusterNames: [member1] } }
`;
const cluster = `apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: { name: member1 }
spec: { syncMode: Push }
`;

async function main(): Promise<void> {
  let host: KubeCluster | undefined;
  let member: KubeCluster | undefined;
  let s: RunningSuite | undefined;
  try {
    host = await startKubeCluster({ name: 'quiet-host', controlPlaneOnly: true });
    const kubectl = async (args: string[], input?: string) => {
      const r = await host!.kubectl(args, input === undefined ? {} : { input });
      if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    };
    await kubectl(['apply', '-f', join(ROOT, 'deploy', 'crds')]);
    await host.waitCrdsEstablished();
    member = await startKubeCluster({ name: 'member1', nodes: 1, cpu: '16', memory: '64Gi', pods: 110, metrics: true });
    s = await startSuite(
      ['gateway', 'status-writer', 'affinity-scheduler', 'kube-bridge'],
      { LEADER_LEASE_MS: '10000', KUBE_BRIDGE_KUBECONFIG: host.kubeconfigPath },
      {},
      { readyTimeoutMs: 60_000 },
    );
    // The agent's own defaults (not the tests' short periods): what an installation runs with.
    await startKubeAgents(s, [member], {
      KUBE_POLL_MS: '10000',
      KUBE_FAILURE_THRESHOLD_MS: '30000',
      KUBE_SUCCESS_THRESHOLD_MS: '30000',
      KUBE_RESYNC_MS: '30000',
    });
    const bridge = s.suite.processes.find((p) => p.name === 'kube-bridge')!;
    await member.setPodCpuUsage({ namespace: 'default', selector: 'quiet=yes', milliCpu: 20 });
    const names = Array.from({ length: WORKLOADS }, (_, i) => `quiet-${i}`);
    await kubectl(['apply', '-f', '-'], [cluster, policy, ...names.map(deployment)].join('---\n'));
    // Every binding on the host with its status (FullyApplied), and the bridge's host writes still for SETTLE_MS.
    await waitFor(
      async () => {
        const rbs = JSON.parse(await kubectl(['get', 'rb', '-n', 'default', '-o', 'json'])) as {
          items: Array<{ status?: { conditions?: Array<{ type: string; status: string }> } }>;
        };
        const applied = rbs.items.filter((rb) =>
          rb.status?.conditions?.some((c) => c.type === 'FullyApplied' && c.status === 'True'),
        );
        return applied.length >= WORKLOADS;
      },
      'every binding FullyApplied on the host',
      300_000,
      2000,
    );
    let last = await scrapedSum(bridge, 'flotilla_kube_bridge_writes_total', { side: 'host' });
    let stillSince = Date.now();
    while (Date.now() - stillSince < SETTLE_MS) {
      await sleep(2000);
      const now = await scrapedSum(bridge, 'flotilla_kube_bridge_writes_total', { side: 'host' });
      if (now !== last) {
        last = now;
        stillSince = Date.now();
      }
    }
    const bus = await connectBus({ url: NATS_URL, prefix: s.env.FLOTILLA_PREFIX! });
    const kvSeq = async () => {
      let sum = 0;
      for (const bucket of [bus.names.objectsBucket, bus.names.statusBucket])
        sum += (await bus.jsm.streams.info(`KV_${bucket}`)).state.last_seq;
      return sum;
    };
    const usageSeq = async () => (await bus.jsm.streams.info(`KV_${bus.names.usageBucket}`)).state.last_seq;
    try {
      const before = { host: last, kv: await kvSeq(), usage: await usageSeq() };
      // Idle pods' usage moves a little: 20m, 23m, 20m, … every 10 s (metrics-server scrapes every 10 s).
      const started = Date.now();
      for (let i = 1; Date.now() - started < QUIET_MS; i++) {
        if (USAGE_MOVES)
          await member.setPodCpuUsage({ namespace: 'default', selector: 'quiet=yes', milliCpu: i % 2 ? 23 : 20 });
        await sleep(Math.min(10_000, QUIET_MS - (Date.now() - started)));
      }
      const hostWrites =
        (await scrapedSum(bridge, 'flotilla_kube_bridge_writes_total', { side: 'host' })) - before.host;
      const kvWrites = (await kvSeq()) - before.kv;
      const usageWrites = (await usageSeq()) - before.usage;
      const usage = USAGE_MOVES ? 'their usage moving' : 'their usage constant';
      report(`A quiet ${QUIET_MS / 1000} s, ${WORKLOADS} idle workloads (${usage}) on a member with metrics-server`, [
        ['kube-bridge writes to the host API server', String(hostWrites)],
        ['writes to the objects and status buckets', String(kvWrites)],
        ['target (issue 24)', '0 and 0'],
        ['writes to the usage bucket (the metric path, not mirrored)', String(usageWrites)],
      ]);
    } finally {
      await bus.close();
    }
  } finally {
    await stopSuiteAndClusters(
      s,
      [member, host].filter((c): c is KubeCluster => c !== undefined),
    );
  }
}

await main();
