// End to end, as users deploy it: `helm install flotilla deploy/helm/flotilla` on a host cluster whose real kubelet
// (scripts/kube-env's real node: Kubernetes' kubelet, Debian's containerd and runc) runs every Flotilla service as a
// pod from the image built from the Dockerfile (scripts/docker-env's engine), with NATS and Redis as pods too
// (deploy/real-node/nats-redis.yaml). The host's real kube-apiserver calls the gateway's webhook through the chart's
// Service, the kube-bridge mirrors what kubectl applies, and a kube member-agent pod per member cluster (real control
// planes, kwok playing their kubelets) applies it there: the five seeds, as test/kubectl-seeds.e2e walks them with
// processes (test/support/seed-steps.ts). Then a pod of each service is deleted (its leader, where it has one) while a
// new workload goes through, the release upgraded and uninstalled.
// The node has a pod network of its own (scripts/kube-env --pod-network: a bridge, no kube-proxy, no cluster DNS): the
// chart runs with its default two replicas of each service; the kube-bridge reaches the API server, and every pod NATS
// and Redis, at the network's gateway; the member-agents use the node's network (the members listen on loopback).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type WebhookPki, webhookPki } from '@flotilla/launcher';
import { eventually, freeTcpPort, scaled } from '@flotilla/testkit';
import { type KubeCluster, REAL_NODE_NAME, kubeBinDir, startKubeCluster } from '@flotilla/testkit/kube';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import {
  CHART,
  CHART_NAMESPACE as NS,
  createChartSecrets,
  helmOn,
  imageValues,
  kubectlOk,
  saveChartImages,
  startCompanions,
} from './support/chart-on-real-node.js';
import { requireDockerEngine } from './support/docker.js';
import { KUBE_AGENT_ENV } from './support/kube-e2e.js';
import { memberDeployment, seedSteps } from './support/seed-steps.js';
import { ROOT } from './support/suite.js';

const run = promisify(execFile);
let host: KubeCluster | undefined;
const members: KubeCluster[] = [];
const MEMBERS = ['member1', 'member2'];
/** The services with two replicas each (the chart's default); a member-agent per member besides. */
const SERVICES = [
  'gateway',
  'status-writer',
  'affinity-scheduler',
  'cron-scheduler',
  'rebalancer',
  'hpa-assigner',
  'kube-bridge',
];
const POD_COUNT = 2 * SERVICES.length + MEMBERS.length;
let dir: string;
let pki: WebhookPki;
/** hostNetwork.basePort: the first of 8 + MEMBERS.length free ports in a row (member-agent i listens on 8 + i). */
let basePort: number;
const timings: Record<string, number> = {};

const kubectl = (args: string[], input?: string) => kubectlOk(host!, args, input);
const helm = (args: string[]) => helmOn(host!)(args);

/** Whether 127.0.0.1:`port` can be listened on now. */
const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
async function freePortRun(count: number): Promise<number> {
  for (;;) {
    const first = await freeTcpPort();
    if (first + count > 65_535) continue;
    const free = await Promise.all(Array.from({ length: count }, (_, i) => portFree(first + i)));
    if (free.every(Boolean)) return first;
  }
}

interface Pod {
  metadata: { name: string; labels?: Record<string, string> };
  spec: { nodeName?: string; hostNetwork?: boolean };
  status: {
    phase: string;
    podIP?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: { restartCount: number }[];
  };
}
interface ClusterObject {
  metadata: { name: string };
  status?: { conditions?: { type: string; status: string; reason?: string; lastTransitionTime?: string }[] };
}
const component = (p: Pod) => p.metadata.labels?.['app.kubernetes.io/component'];
/** The pod's metrics and probes port: 8080 on its own address, basePort + 8 + i for member-agent i on the node's. */
const metricsUrl = (p: Pod, path: string) => {
  if (!p.spec.hostNetwork) return `http://${p.status.podIP}:8080${path}`;
  const member = MEMBERS.indexOf(p.metadata.labels?.['flotilla.io/member-cluster'] ?? '');
  return `http://127.0.0.1:${basePort + 8 + member}${path}`;
};
const podReady = (p: Pod) => p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
const flotillaPods = async (): Promise<Pod[]> =>
  (
    JSON.parse(await kubectl(['get', 'pods', '-n', NS, '-l', 'app.kubernetes.io/part-of=flotilla', '-o', 'json'])) as {
      items: Pod[];
    }
  ).items;

/** The Flotilla pods (POD_COUNT) once every one is Ready and none is in `replaced`. */
const allReady = (replaced: Set<string>) =>
  eventually(
    async () => {
      const pods = await flotillaPods();
      return pods.length === POD_COUNT && pods.every((p) => !replaced.has(p.metadata.name) && podReady(p))
        ? pods
        : undefined;
    },
    240_000,
    'every Flotilla pod Ready',
  );

/** What the pods say when a step fails: their states, each one's last log lines, and more of any not Ready. */
async function podReport(): Promise<string> {
  const lines = [await kubectl(['get', 'pods', '-n', NS, '-o', 'wide'])];
  // Which cluster lost its Ready condition and why, when a binding moved that should not have.
  const clusters = await host!.kubectl(['get', 'clusters', '-o', 'json']);
  for (const c of (JSON.parse(clusters.stdout || '{"items":[]}') as { items: ClusterObject[] }).items)
    lines.push(`cluster ${c.metadata.name}: ${JSON.stringify(c.status?.conditions ?? [])}`);
  // Flotilla's events as the bridge mirrors them (cluster status expiries, taints, scheduling decisions), oldest first;
  // the kubelet's and the Deployment controller's about the roll itself would push them out of the last 40.
  const events = await host!.kubectl([
    'get',
    'events',
    '-A',
    '--sort-by=.lastTimestamp',
    '--field-selector=involvedObject.kind!=Pod,involvedObject.kind!=ReplicaSet,involvedObject.kind!=Deployment',
  ]);
  lines.push('--- events', events.stdout.split('\n').slice(-40).join('\n'));
  for (const p of await flotillaPods()) {
    const logs = await host!.kubectl(['logs', p.metadata.name, '-n', NS, '--tail=10']);
    lines.push(`--- ${p.metadata.name}`, logs.stdout);
    if (!podReady(p)) {
      const describe = await host!.kubectl(['describe', 'pod', p.metadata.name, '-n', NS]);
      const previous = await host!.kubectl(['logs', p.metadata.name, '-n', NS, '--previous', '--tail=15']);
      lines.push(describe.stdout.split('\n').slice(-15).join('\n'), previous.stdout);
    }
  }
  return lines.join('\n');
}

/** The chart's value key of a service: `status-writer` → `statusWriter`. */
const valuesKey = (service: string) => service.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());

/**
 * The values of this installation: the local image, the pod network's gateway for the API server, member-agents on
 * the node's network, the webhook's CA and client CA, a member-agent per member, and the e2e suites' quick failure
 * detection and failover (as test/kubectl-seeds.e2e runs the services). CPU requests are cut to 10m: the node has
 * the machine's two cores, and an upgrade surges a pod of every service at once.
 */
function installArgs(): string[] {
  const set = (k: string, v: string | number) => ['--set', `${k}=${v}`];
  return [
    ...imageValues(),
    ...set('memberAgent.hostNetwork', 'true'),
    ...set('hostNetwork.basePort', basePort),
    ...set('apiServer.host', host!.podNetwork!.gateway),
    ...set('apiServer.port', new URL(host!.server).port),
    ...[...SERVICES, 'member-agent'].flatMap((s) => set(`${valuesKey(s)}.resources.requests.cpu`, '10m')),
    ...set('gateway.webhook.caBundle', readFileSync(join(pki.dir, 'serving-ca.crt')).toString('base64')),
    ...set('gateway.clientCaSecretName', 'flotilla-apiserver-client-ca'),
    ...MEMBERS.flatMap((name, i) => set(`memberAgent.clusters[${i}].name`, name)),
    ...Object.entries(KUBE_AGENT_ENV).flatMap(([k, v]) => set(`memberAgent.config.${k}`, v)),
    // How long a member may go unheard (its agent's lease) or fail its probes before it is not Ready. The upgrade
    // replaces each member's agent on the node's network, stopped before its successor starts (no surge: the ports),
    // while every other pod of the release starts too. Twice in one day (once idle, once beside two busy loops) both
    // members turned Ready again right after their new agents started, and member1 lost nginx to the test's 1 s
    // failover grace: the gap most likely reached Karmada's 40 s cluster monitor grace. Agents off the node's network
    // surge; here the grace is 120 s, scaled with the machine like the probes' failure threshold.
    ...set('affinityScheduler.config.CLUSTER_MONITOR_GRACE_MS', scaled(120_000)),
    ...set('memberAgent.config.KUBE_FAILURE_THRESHOLD_MS', scaled(Number(KUBE_AGENT_ENV.KUBE_FAILURE_THRESHOLD_MS))),
    ...set('affinityScheduler.config.FAILOVER_GRACE_MS', 1000),
    ...set('affinityScheduler.config.RESYNC_MS', 2000),
  ];
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flotilla-helm-'));
  // 1. The images: Flotilla's from the Dockerfile, NATS and Redis from scripts/docker-env, saved for containerd.
  await requireDockerEngine();
  let started = performance.now();
  const images = await saveChartImages(dir);
  timings.images = performance.now() - started;
  // 2. The clusters: the members played by kwok, and the host with the real node, whose API server presents a client
  //    certificate to the webhook (deploy/apiserver).
  pki = await webhookPki(dir, join(ROOT, 'deploy'), { gatewayDnsNames: [`flotilla-gateway.${NS}.svc`] });
  started = performance.now();
  // Both members with 8 cpus and 64Gi, so that either alone holds every seed's workloads after a failover (see
  // test/kubectl-seeds.e2e).
  members.push(
    ...(await Promise.all(
      MEMBERS.map((name) => startKubeCluster({ name: `helm-${name}`, nodes: 1, cpu: '8', memory: '64Gi', pods: 110 })),
    )),
  );
  host = await startKubeCluster({
    name: 'helm-host',
    nodes: 0,
    realNode: true,
    podNetwork: true,
    pods: 40,
    extraApiServerArgs: [`--admission-control-config-file=${pki.admissionConfigPath}`],
  });
  timings.clusters = performance.now() - started;
  started = performance.now();
  await host.importImage(images);
  timings.import = performance.now() - started;
  basePort = await freePortRun(8 + MEMBERS.length);
  // 3. NATS and Redis (the companion manifest, at the pod network's gateway), and the Secrets the chart refers to.
  const { natsUrl, redisUrl } = await startCompanions(host);
  await createChartSecrets(host, {
    natsUrl,
    redisUrl,
    pki,
    clientCa: true,
    members: MEMBERS.map((name, i) => ({ name, kubeconfigPath: members[i]!.kubeconfigPath })),
  });
}, 1_500_000);

afterAll(async () => {
  console.info(
    `helm install on a real node (s): ${JSON.stringify(Object.fromEntries(Object.entries(timings).map(([k, v]) => [k, Math.round(v / 100) / 10])))}`,
  );
  await Promise.all([host?.stop(), ...members.map((m) => m.stop())]);
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe('helm install on a cluster whose real kubelet runs Flotilla', { timeout: 300_000 }, () => {
  beforeEach(() => onTestFailed(async () => console.log(await podReport().catch((err) => String(err)))));

  it('brings every service up as a pod on the real node, each Ready by its probes', async () => {
    const started = performance.now();
    await helm(['install', 'flotilla', CHART, '-n', NS, '--wait', '--timeout', '5m', ...installArgs()]);
    const pods = await allReady(new Set());
    timings.helmInstallToReady = performance.now() - started;
    expect(pods.map(component).sort()).toEqual([...SERVICES, ...SERVICES, ...MEMBERS.map(() => 'member-agent')].sort());
    for (const pod of pods) {
      expect(pod.spec.nodeName, pod.metadata.name).toBe(REAL_NODE_NAME);
      expect(pod.status.phase, pod.metadata.name).toBe('Running');
      expect(podReady(pod), pod.metadata.name).toBe(true);
      // The member-agents on the node's network, every other pod on an address of the pod network.
      expect(pod.spec.hostNetwork === true, pod.metadata.name).toBe(component(pod) === 'member-agent');
      // The probes' endpoint, from the node, as the kubelet calls it.
      expect((await fetch(metricsUrl(pod, '/readyz'))).status, pod.metadata.name).toBe(200);
    }
    console.info(await kubectl(['get', 'pods', '-n', NS, '-o', 'wide']));
  });

  it("the real API server calls the gateway's webhook through the chart's Service", async () => {
    const res = await host!.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'autoscaling.karmada.io/v1alpha1',
        kind: 'CronFederatedHPA',
        metadata: { name: 'bad-schedule', namespace: 'default' },
        spec: {
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
          rules: [{ name: 'up', schedule: '61 * * * *', targetReplicas: 3 }],
        },
      }),
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('admission webhook "validate.flotilla.io" denied the request');
    expect(res.stderr).toContain('spec.rules[0].schedule');
  });

  it('helm test: a pod of the release finds every gateway replica answering /readyz and the webhook refusing a bad object', async () => {
    // The chart's test hook (templates/tests/): a pod of Flotilla's own image, already on the node, running
    // files/helm-test.mjs as a ServiceAccount that exists only while the test runs. helm prints its log on stderr.
    const { stdout, stderr } = await run(
      join(kubeBinDir(), 'helm'),
      ['test', 'flotilla', '-n', NS, '--timeout', '4m', `--kubeconfig=${host!.kubeconfigPath}`],
      { maxBuffer: 16 << 20, timeout: 300_000 },
    );
    console.info(`helm test:\n${stdout}${stderr}`);
    expect(stdout).toMatch(/TEST SUITE:\s+flotilla-helm-test\n(.*\n){2}Phase:\s+Succeeded/);
    expect(stdout).not.toMatch(/Phase:\s+Failed/);
    const gateways = (await flotillaPods()).filter((p) => component(p) === 'gateway');
    for (const p of gateways) expect(stderr).toContain(`ok http://${p.status.podIP}:8080/readyz: 200`);
    expect(stderr).toContain('ok the webhook refused a bad CronFederatedHPA');
    expect(stderr).toContain('spec.rules[0].schedule');
    // Nothing of the test is left behind once it passed.
    expect(
      await kubectl([
        'get',
        'pods,serviceaccounts,roles,rolebindings,networkpolicies',
        '-n',
        NS,
        '-l',
        'app.kubernetes.io/component=helm-test',
        '-o',
        'name',
      ]),
    ).toBe('');
  });

  seedSteps({ host: () => host!, member1: () => members[0]!, member2: () => members[1]! });

  it("a deleted pod of each service, its leader where it has one, is survived by the Deployment's other replica", async () => {
    const before = await kubectl(['get', 'rb', 'nginx-deployment', '-n', 'default', '-o', 'jsonpath={.spec.clusters}']);
    const pods = await flotillaPods();
    const victims: string[] = [];
    for (const service of SERVICES) {
      const replicas = pods.filter((p) => component(p) === service);
      expect(replicas, service).toHaveLength(2);
      const leading = await Promise.all(
        replicas.map(async (p) =>
          /^flotilla_leader(\{[^}]*\})? 1$/m.test(await (await fetch(metricsUrl(p, '/metrics'))).text()),
        ),
      );
      victims.push(replicas[Math.max(0, leading.indexOf(true))]!.metadata.name);
    }
    const deleted = performance.now();
    await kubectl(['delete', 'pod', ...victims, '-n', NS, '--wait=false']);
    // Meanwhile a new workload goes the whole way: kubectl on the host, the kube-bridge, the gateway, the scheduler,
    // the status-writer and member1's agent.
    await kubectl(
      ['apply', '-f', '-'],
      [
        'apiVersion: apps/v1',
        'kind: Deployment',
        'metadata: { name: survivor, namespace: default }',
        'spec:',
        '  replicas: 1',
        '  selector: { matchLabels: { app: survivor } }',
        '  template:',
        '    metadata: { labels: { app: survivor } }',
        '    spec: { containers: [{ name: c, image: nginx }] }',
        '---',
        'apiVersion: policy.karmada.io/v1alpha1',
        'kind: PropagationPolicy',
        'metadata: { name: survivor, namespace: default }',
        'spec:',
        '  resourceSelectors: [{ apiVersion: apps/v1, kind: Deployment, name: survivor }]',
        '  placement: { clusterAffinity: { clusterNames: [member1] } }',
      ].join('\n'),
    );
    await memberDeployment(members[0]!, 'survivor', 1, 120_000);
    const reached = performance.now() - deleted;
    await allReady(new Set(victims));
    console.info(
      `deleted ${victims.join(', ')}: a new Deployment reached member1 after ${Math.round(reached)} ms, ` +
        `every replacement Ready after ${Math.round(performance.now() - deleted)} ms`,
    );
    expect(await kubectl(['get', 'rb', 'nginx-deployment', '-n', 'default', '-o', 'jsonpath={.spec.clusters}'])).toBe(
      before,
    );
  });

  it('helm upgrade to a changed value rolls every pod without losing the binding', async () => {
    const before = new Set((await flotillaPods()).map((p) => p.metadata.name));
    await helm([
      'upgrade',
      'flotilla',
      CHART,
      '-n',
      NS,
      '--wait',
      '--timeout',
      '5m',
      ...installArgs(),
      '--set',
      'logLevel=debug',
      '--set',
      'image.pullPolicy=IfNotPresent',
    ]);
    const after = await allReady(before);
    expect(after.map((p) => p.spec.nodeName)).toEqual(Array(POD_COUNT).fill(REAL_NODE_NAME));
    expect(
      await kubectl(['get', 'rb', 'nginx-deployment', '-n', 'default', '-o', 'jsonpath={.spec.clusters}']),
    ).toContain('member1');
    // The upgraded installation still carries a change from kubectl to the member.
    await kubectl(['scale', 'deployment/nginx', '-n', 'default', '--replicas=3']);
    await memberDeployment(members[0]!, 'nginx', 3, 120_000);
  });

  it('helm uninstall removes what the chart created except the CRDs', async () => {
    await helm(['uninstall', 'flotilla', '-n', NS, '--wait', '--timeout', '5m']);
    const left = await kubectl([
      'get',
      'deployments,services,configmaps,serviceaccounts,poddisruptionbudgets,networkpolicies,validatingwebhookconfigurations,clusterroles,clusterrolebindings',
      '-A',
      '-l',
      'app.kubernetes.io/part-of=flotilla',
      '-o',
      'name',
    ]);
    expect(left.trim()).toBe('');
    expect(await host!.kubectl(['get', 'validatingwebhookconfiguration', 'flotilla-validate'])).toMatchObject({
      code: 1,
    });
    await eventually(async () => ((await flotillaPods()).length === 0 ? true : undefined), 120_000, 'no Flotilla pod');
    const crds = await kubectl(['get', 'crd', '-o', 'name']);
    expect(crds).toContain('resourcebindings.work.karmada.io');
    expect(crds).toContain('cronfederatedhpas.autoscaling.karmada.io');
  });
});
