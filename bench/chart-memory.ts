// Memory of every pod of the Helm chart at 10,000 objects, against the limits the chart gives it (issue 26: the chart's
// requests and limits come from measured memory, and no pod is OOMKilled in a bench run through the chart).
// `helm install` of deploy/helm/flotilla, with its default values (two replicas of each service, their requests and
// limits), on a scripts/kube-env host cluster whose real node runs the pods on its pod network; NATS and Redis beside
// it (deploy/real-node/nats-redis.yaml); BENCH_CLUSTERS simulated member clusters served by one sim member-agent pod
// of the bench's own (not the chart's: its member-agents drive one real cluster each). From this process, through the
// gateway: the clusters, one Divided policy and BENCH_OBJECTS Deployments, until every binding is scheduled. Then each
// pod's memory from its cgroup (the resident set now, and the peak usage the OOM killer weighs since the pod started,
// its informers' first list included), its restarts and whether one was OOMKilled.
import { mkdtempSync, readdirSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectBus, type Bus } from '@flotilla/bus';
import { GatewayClient } from '@flotilla/client';
import { webhookPki } from '@flotilla/launcher';
import { type KubeCluster, readKubeClusterRecord, startKubeCluster } from '@flotilla/testkit/kube';
import {
  CHART,
  CHART_NAMESPACE as NS,
  createChartSecrets,
  helmOn,
  imageValues,
  kubectlOk,
  saveChartImages,
  startCompanions,
} from '../test/support/chart-on-real-node.js';
import { FLOTILLA_IMAGE, requireDockerEngine } from '../test/support/docker.js';
import { ROOT } from '../test/support/suite.js';
import { applyAndSchedule, applyBenchFleet, fmt, report, waitFor } from './support.js';

const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 100);
const OBJECTS = Number(process.env.BENCH_OBJECTS ?? 10_000);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 64);
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 15_000);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 1_200_000);
const SIM_MEMBERS = 'bench-sim-members';
/** Two replicas of each of the chart's seven services (no member-agent of its own here), and the sim members. */
const POD_COUNT = 2 * 7 + 1;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Pod {
  metadata: { name: string; uid: string; labels?: Record<string, string> };
  spec: { containers: { resources?: { limits?: { memory?: string } } }[] };
  status: {
    conditions?: { type: string; status: string }[];
    containerStatuses?: { restartCount: number; lastState?: { terminated?: { reason?: string } } }[];
  };
}

/** A Kubernetes memory quantity (as the chart writes them: Mi, Gi) in MiB. */
const mib = (q: string | undefined): number => {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi)?$/.exec(q ?? '');
  if (!m) return NaN;
  return Number(m[1]) * { Ki: 1 / 1024, Mi: 1, Gi: 1024, '': 1 / 2 ** 20 }[m[2] ?? '']!;
};

/** The pod's cgroup folder in the memory hierarchy (cgroups v1 here; v2 where the machine has it). */
function podCgroup(nodeCgroup: string, uid: string): string | undefined {
  const roots = ['/sys/fs/cgroup/memory', '/sys/fs/cgroup'].map((r) => join(r, nodeCgroup)).filter(existsSync);
  const find = (dir: string): string | undefined => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      if (e.name === `pod${uid}` || e.name === `pod${uid.replaceAll('-', '_')}`) return join(dir, e.name);
      const below = find(join(dir, e.name));
      if (below) return below;
    }
    return undefined;
  };
  for (const root of roots) {
    const found = find(root);
    if (found) return found;
  }
  return undefined;
}

/** Resident set now and peak usage (what counts against the limit), in MiB. */
function podMemory(dir: string | undefined): { rss: number; peak: number } {
  if (!dir) return { rss: NaN, peak: NaN };
  const read = (f: string) => (existsSync(join(dir, f)) ? readFileSync(join(dir, f), 'utf8') : '');
  const stat = read('memory.stat');
  const rss = Number(/^(?:total_rss|anon) (\d+)$/m.exec(stat)?.[1] ?? NaN);
  const peak = Number(read('memory.max_usage_in_bytes') || read('memory.peak') || NaN);
  return { rss: rss / 2 ** 20, peak: peak / 2 ** 20 };
}

/** One sim member-agent for every simulated cluster, on the chart's connections (the bench's, not the chart's). */
const simMembers = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: SIM_MEMBERS, namespace: NS },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: SIM_MEMBERS } },
    template: {
      metadata: { labels: { app: SIM_MEMBERS } },
      spec: {
        automountServiceAccountToken: false,
        securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000 },
        containers: [
          {
            name: 'member-agent',
            image: FLOTILLA_IMAGE,
            imagePullPolicy: 'Never',
            command: ['node', 'services/member-agent/dist/main.js'],
            env: [
              { name: 'MEMBER_DRIVER', value: 'sim' },
              { name: 'FLOTILLA_PREFIX', value: 'flotilla' },
              { name: 'HTTP_HOST', value: '0.0.0.0' },
              ...['NATS_URL', 'REDIS_URL'].map((key) => ({
                name: key,
                valueFrom: { secretKeyRef: { name: 'flotilla-connections', key } },
              })),
            ],
            readinessProbe: { httpGet: { path: '/readyz', port: 8080 }, periodSeconds: 2 },
          },
        ],
      },
    },
  },
};

await requireDockerEngine();
const dir = mkdtempSync(join(tmpdir(), 'flotilla-chart-bench-'));
let host: KubeCluster | undefined;
let bus: Bus | undefined;
async function stopAll(): Promise<void> {
  await bus?.close().catch(() => undefined);
  await host?.stop().catch((err: unknown) => console.error(`stopping the host cluster: ${String(err)}`));
  rmSync(dir, { recursive: true, force: true });
}
// Interrupted: the node's pods, its cgroup, mounts and bridge go too, not only the processes.
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void stopAll().finally(() => process.exit(130)));

try {
  const images = await saveChartImages(dir);
  const pki = await webhookPki(dir, join(ROOT, 'deploy'), { gatewayDnsNames: [`flotilla-gateway.${NS}.svc`] });
  host = await startKubeCluster({ name: 'chart-bench', nodes: 0, realNode: true, podNetwork: true, pods: 40 });
  const kubectl = (args: string[], input?: string) => kubectlOk(host!, args, input);
  await host.importImage(images);
  const { natsUrl, redisUrl } = await startCompanions(host);
  await createChartSecrets(host, { natsUrl, redisUrl, pki });
  await kubectl(['apply', '-f', '-'], JSON.stringify(simMembers));
  const started = performance.now();
  await helmOn(host)([
    'install',
    'flotilla',
    CHART,
    '-n',
    NS,
    '--wait',
    '--timeout',
    '10m',
    ...imageValues(),
    '--set',
    `apiServer.host=${host.podNetwork!.gateway}`,
    '--set',
    `apiServer.port=${new URL(host.server).port}`,
    '--set',
    'memberAgent.clusters=null',
    '--set',
    `gateway.webhook.caBundle=${readFileSync(join(pki.dir, 'serving-ca.crt')).toString('base64')}`,
  ]);
  const pods = async (): Promise<Pod[]> =>
    (JSON.parse(await kubectl(['get', 'pods', '-n', NS, '-o', 'json'])) as { items: Pod[] }).items.filter(
      (p) => p.metadata.labels?.['app.kubernetes.io/part-of'] === 'flotilla' || p.metadata.labels?.app === SIM_MEMBERS,
    );
  const ready = (p: Pod) => p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
  await waitFor(
    async () => {
      const list = await pods();
      return list.length === POD_COUNT && list.every(ready);
    },
    'every pod Ready',
    600_000,
    1000,
  ).catch(async (err: unknown) => {
    throw new Error(`${(err as Error).message}:\n${await kubectl(['get', 'pods', '-n', NS, '-o', 'wide'])}`);
  });
  const installSeconds = (performance.now() - started) / 1000;

  bus = await connectBus({ url: natsUrl, prefix: 'flotilla', name: 'bench-chart-memory' });
  const client = new GatewayClient(bus.nc, { apiRoot: bus.names.apiRoot, timeoutMs: 60_000 });
  await applyBenchFleet(bus, client, CLUSTERS, IN_FLIGHT);
  const applying = performance.now();
  await applyAndSchedule(bus, client, { objects: OBJECTS, inFlight: IN_FLIGHT, timeoutMs: TIMEOUT_MS });
  const scheduledSeconds = (performance.now() - applying) / 1000;
  await sleep(SETTLE_MS);

  const nodeCgroup = (await readKubeClusterRecord(host.dir))?.realNode?.cgroup ?? '';
  const sample = async () =>
    (await pods()).map((p) => ({
      name: p.metadata.name,
      service: p.metadata.labels?.['app.kubernetes.io/component'] ?? `${SIM_MEMBERS} (the bench's)`,
      limit: mib(p.spec.containers[0]?.resources?.limits?.memory),
      restarts: p.status.containerStatuses?.[0]?.restartCount ?? 0,
      oomKilled: p.status.containerStatuses?.[0]?.lastState?.terminated?.reason === 'OOMKilled',
      ...podMemory(podCgroup(nodeCgroup, p.metadata.uid)),
    }));
  const holding = await sample();

  const rows = (list: Awaited<ReturnType<typeof sample>>) =>
    list
      .sort((a, b) => a.service.localeCompare(b.service) || a.name.localeCompare(b.name))
      .map((p): [string, string] => [
        p.service,
        `rss ${fmt(p.rss).padStart(6)}  peak ${fmt(p.peak).padStart(6)}  limit ${Number.isNaN(p.limit) ? '  none' : fmt(p.limit).padStart(6)}  ` +
          `(${Number.isNaN(p.limit) ? '-' : `${fmt((100 * p.peak) / p.limit, 0)} %`})  restarts ${p.restarts}${p.oomKilled ? '  OOMKilled' : ''}`,
      ]);
  report(`chart pods holding ${CLUSTERS} simulated clusters and ${OBJECTS} Deployments, MiB`, rows(holding));
  const all = holding;
  const oom = all.filter((p) => p.oomKilled).length;
  const over = all.filter((p) => p.peak > p.limit).length;
  report('chart memory', [
    ['helm install to every pod Ready', `${fmt(installSeconds)} s`],
    [`${OBJECTS} Deployments applied and scheduled through the chart`, `${fmt(scheduledSeconds)} s`],
    ['pods OOMKilled', `${oom}  (floor 0: ${oom === 0 ? 'met' : 'missed'})`],
    ['peak usage above the limit', `${over} pods  (floor 0: ${over === 0 ? 'met' : 'missed'})`],
    [
      'largest peak against its limit',
      (() => {
        const worst = all.filter((p) => p.limit > 0).sort((a, b) => b.peak / b.limit - a.peak / a.limit)[0];
        return worst ? `${worst.service} ${fmt(worst.peak)} of ${fmt(worst.limit)} MiB` : '-';
      })(),
    ],
  ]);
} finally {
  await stopAll();
}
