// kubectl as the front door (issue 18), on real kube-apiservers (etcd + kube-apiserver from Kubernetes' Go modules,
// started by @flotilla/testkit/kube) with deploy/crds loaded:
// 1. `kubectl apply -f` of BENCH_KUBE_BRIDGE_OBJECTS (1,000) CronFederatedHPAs in one file: each admitted by the
//    API server calling the gateway's /validate over mutual TLS, mirrored into Flotilla by the kube-bridge (the
//    gateway's admission again), armed by the cron-scheduler, its status folded by the status-writer and written
//    back to the host's status subresource by the bridge. Against `flotilla apply -f` of the same objects in the
//    same run, the bridge stopped (its copying to the host would slow the baseline), status read in Flotilla.
//    Rate: objects / (last status seen - CLI started). Latency per object: from the moment the CLI moved on to it
//    (both CLIs apply one document at a time, so the previous document's answer line) until a watch at the same
//    front door sees its status. Target: kubectl >= 50 % of flotilla apply's rate. Beside the figures: the CPU
//    seconds each process used in each part (procfs; kubectl's sampled every 250 ms), what the bridge wrote and
//    reconciled, and the gateway's spec reads and requests, to tell where an object's cost goes.
//    The webhook is the gateway's webhook thread (GATEWAY_WEBHOOK_PORT); BENCH_WEBHOOK_ON_API_PORT=1 calls the API port.
// 2. resident memory of the kube-bridge process mirroring BENCH_KUBE_BRIDGE_MIRRORED (10,000) CronFederatedHPAs,
//    beside its idle floor (the process leading, nothing to mirror), and after a restart (the initial lists of both
//    sides are the peak a new leader must fit in). Target: <= 150 MB.
// Each part has a host API server of its own: what one part leaves there would be mirrored by the other's bridge.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { connectBus, type KV, KvWatchInclude } from '@flotilla/bus';
import { main } from '@flotilla/cli';
import { mapLimited } from '@flotilla/member-agent';
import { eventually, freeTcpPort, NATS_URL } from '@flotilla/testkit';
import { type KubeCluster, kubeBinDir, kubeProgram, startKubeCluster } from '@flotilla/testkit/kube';
import { KubeConfig, KubernetesObjectApi, type KubernetesObject, Watch } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { webhookPki } from '@flotilla/launcher';
import { ROOT, startSuite } from '../test/support/suite.js';
import {
  type Buckets,
  bucketsSince,
  cpuOfPidSeconds,
  fmt,
  heapOfServiceMb,
  histogramBuckets,
  histogramQuantile,
  latencySummary,
  observations,
  report,
  rssOfPidMb,
  shareAtMost,
  waitFor,
} from './support.js';

const OBJECTS = Number(process.env.BENCH_KUBE_BRIDGE_OBJECTS ?? 1000);
const MIRRORED = Number(process.env.BENCH_KUBE_BRIDGE_MIRRORED ?? 10_000);
/**
 * Namespaces the objects are spread over, round robin (default all in one). The gateway's admission of a
 * FederatedHPA or EffectiveHPA reads the autoscalers of its namespace; a CronFederatedHPA's reads only its workload's
 * possible autoscalers (none here).
 */
const NAMESPACES = Number(process.env.BENCH_KUBE_BRIDGE_NAMESPACES ?? 1);
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 5000);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 900_000);
/** Which figures to measure (BENCH_KUBE_BRIDGE_PARTS=apply,memory; default both). */
const PARTS = new Set((process.env.BENCH_KUBE_BRIDGE_PARTS ?? 'apply,memory').split(','));
const TARGET_MB = 150;
/** `BENCH_KUBECTL_SERVER_SIDE=1`: `kubectl apply --server-side` (one request per object, no GET first). */
const KUBECTL_APPLY_FLAGS = process.env.BENCH_KUBECTL_SERVER_SIDE === '1' ? ['--server-side'] : [];
/**
 * `BENCH_WEBHOOK_ON_API_PORT=1`: the API server calls /validate on the gateway's API port, answered on its event loop,
 * as before GATEWAY_WEBHOOK_PORT (the default: the webhook thread's own port).
 */
const WEBHOOK_ON_API_PORT = process.env.BENCH_WEBHOOK_ON_API_PORT === '1';
const MAX_CLI_RUNS = 5;
const CRDS = join(ROOT, 'deploy', 'crds');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const namespaceOf = (prefix: string, i: number) => `${prefix}-${i % NAMESPACES}`;
const namespaces = (prefix: string) =>
  Array.from({ length: Math.min(NAMESPACES, OBJECTS) }, (_, i) => `${prefix}-${i}`);

/** CronFederatedHPA `i` in one of `prefix`'s namespaces; its name is unique across them. */
const cronFhpa = (prefix: string, i: number) => ({
  apiVersion: 'autoscaling.karmada.io/v1alpha1',
  kind: 'CronFederatedHPA',
  metadata: { name: `cron-${String(i).padStart(5, '0')}`, namespace: namespaceOf(prefix, i) },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: `w-${i}` },
    rules: [{ name: 'scale-up', schedule: '0 8 * * 1-5', targetReplicas: 3 + (i % 5), timeZone: 'Asia/Shanghai' }],
  },
});

async function hostCluster(name: string, extraApiServerArgs: string[] = []): Promise<KubeCluster> {
  const cluster = await startKubeCluster({ name, controlPlaneOnly: true, extraApiServerArgs });
  const ok = async (args: string[]) => {
    const r = await cluster.kubectl(args);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
  };
  await ok(['apply', '-f', CRDS]);
  await cluster.waitCrdsEstablished();
  return cluster;
}

async function createNamespaces(cluster: KubeCluster, names: string[]): Promise<void> {
  const list = {
    apiVersion: 'v1',
    kind: 'List',
    items: names.map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })),
  };
  const r = await cluster.kubectl(['apply', '-f', '-'], { input: JSON.stringify(list) });
  if (r.code !== 0) throw new Error(`creating namespaces: ${r.stderr}`);
}

/**
 * Runs a CLI's apply; `answered(name, ms)` at each answer line it prints (`kind/name created`). As its user would,
 * runs it again while some object failed (a timeout on a busy machine): the objects stored already are unchanged.
 * Returns how many runs it took.
 */
async function timedApply(
  run: (onLine: (line: string) => void) => Promise<number>,
  answered: (name: string, at: number) => void,
): Promise<number> {
  const done = new Set<string>();
  for (let runs = 1; ; runs++) {
    const code = await run((line) => {
      const m = /^\S+\/(\S+) (created|configured|unchanged|serverside-applied)/.exec(line);
      if (m && !done.has(m[1]!)) {
        done.add(m[1]!);
        answered(m[1]!, performance.now());
      }
    });
    if (code === 0) return runs;
    if (runs === MAX_CLI_RUNS) throw new Error(`apply exited ${code} ${runs} times`);
  }
}

/** Per object: when its CLI moved on to it, and when its status was first seen at the front door. */
class Timeline {
  readonly started = new Map<string, number>();
  readonly status = new Map<string, number>();
  private t0 = 0;
  private last = 0;
  /** The CLI starts now. */
  start(): void {
    this.t0 = this.last = performance.now();
  }
  readonly answeredAt = new Map<string, number>();
  answered(name: string, at: number): void {
    this.started.set(name, this.last);
    this.answeredAt.set(name, at);
    this.last = at;
  }
  get cliMs(): number {
    return this.last - this.t0;
  }
  summary(): { totalMs: number; rate: number; latencies: number[] } {
    const totalMs = Math.max(...this.status.values()) - this.t0;
    const latencies = [...this.started].map(([name, t]) => this.status.get(name)! - t);
    return { totalMs, rate: (this.status.size * 1000) / totalMs, latencies };
  }
}

async function applyPart(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'flotilla-bench-bridge-'));
  const pki = await webhookPki(dir, join(ROOT, 'deploy'));
  const gatewayPort = await freeTcpPort();
  const webhookPort = WEBHOOK_ON_API_PORT ? gatewayPort : await freeTcpPort();
  const cluster = await hostCluster('bench-bridge-apply', [
    `--admission-control-config-file=${pki.admissionConfigPath}`,
  ]);
  try {
    const s = await startSuite(
      ['gateway', 'cron-scheduler', 'status-writer', 'kube-bridge'],
      { LOG_LEVEL: 'warn', LEADER_LEASE_MS: '10000', KUBE_BRIDGE_KUBECONFIG: cluster.kubeconfigPath },
      {
        gateway: {
          ...pki.gatewayEnv(gatewayPort),
          ...(WEBHOOK_ON_API_PORT ? {} : { GATEWAY_WEBHOOK_PORT: String(webhookPort) }),
        },
      },
    );
    const bus = await connectBus({ url: NATS_URL, prefix: s.env.FLOTILLA_PREFIX, name: 'bench-kube-bridge' });
    try {
      const kubectl = (args: string[], input?: string) => cluster.kubectl(args, input === undefined ? {} : { input });
      const registered = await kubectl(['apply', '-f', '-'], pki.webhookOnLoopback(webhookPort));
      if (registered.code !== 0) throw new Error(`the webhook configuration: ${registered.stderr}`);
      // The API server picks the webhook up from its informer: probe with a refused dry run until it is called.
      const bad = { ...cronFhpa('default', 0), metadata: { name: 'bad', namespace: 'default' } };
      bad.spec.rules[0]!.schedule = '61 * * * *';
      await eventually(
        async () =>
          (await kubectl(['apply', '--dry-run=server', '-f', '-'], JSON.stringify(bad))).code !== 0 ? true : undefined,
        30_000,
        'the API server to call the webhook',
      );
      await createNamespaces(cluster, [...namespaces('bench-kubectl'), ...namespaces('bench-flotilla')]);

      // kubectl: the host's own watch tells when the bridge wrote each status.
      const kubectlFile = join(dir, 'kubectl.yaml');
      writeFileSync(kubectlFile, docs('bench-kubectl'));
      const kc = new KubeConfig();
      kc.loadFromFile(cluster.kubeconfigPath);
      const hostStatus = new Map<string, number>();
      const hostWatch = await new Watch(kc).watch(
        '/apis/autoscaling.karmada.io/v1alpha1/cronfederatedhpas',
        {},
        (_type, o: { metadata: { name: string; namespace: string }; status?: unknown }) => {
          if (o.metadata.namespace.startsWith('bench-kubectl-') && o.status && !hostStatus.has(o.metadata.name))
            hostStatus.set(o.metadata.name, performance.now());
        },
        () => undefined,
      );
      const mirroredAt = await firstPuts(bus.objects, 'bench-kubectl');
      const foldedAt = await firstPuts(bus.status, 'bench-kubectl');
      const cpu = new CpuUse({
        ...clusterPids(cluster),
        ...Object.fromEntries(s.suite.processes.map((p) => [p.name, p.child.pid])),
      });
      const gatewayProcess = s.suite.processes.find((p) => p.name === 'gateway')!;
      const webhookBefore = await webhookTimes(cluster, gatewayProcess.httpPort);
      const viaKubectl = new Timeline();
      viaKubectl.start();
      const kubectlRuns = await timedApply(
        (onLine) =>
          runKubectl(cluster.kubeconfigPath, ['apply', ...KUBECTL_APPLY_FLAGS, '-f', kubectlFile], onLine, cpu),
        (name, at) => viaKubectl.answered(name, at),
      );
      await waitFor(() => hostStatus.size >= OBJECTS, `${OBJECTS} statuses on the host`, TIMEOUT_MS, 100);
      const kubectlCpu = cpu.since();
      const webhook = webhookRows(await webhookTimes(cluster, gatewayProcess.httpPort), webhookBefore);
      hostWatch.abort();
      mirroredAt.stop();
      foldedAt.stop();
      for (const [name, at] of hostStatus) viaKubectl.status.set(name, at);
      // Where an object's time goes: admitted (kubectl's answer) -> in Flotilla -> its status folded -> on the host.
      const stage = (from: (n: string) => number | undefined, to: (n: string) => number | undefined) =>
        latencySummary([...viaKubectl.answeredAt.keys()].map((n) => to(n)! - from(n)!));
      const stages: Array<[string, string]> = [
        [
          '    admitted -> mirrored into Flotilla',
          stage(
            (n) => viaKubectl.answeredAt.get(n),
            (n) => mirroredAt.seen.get(n),
          ),
        ],
        [
          '    mirrored -> status folded',
          stage(
            (n) => mirroredAt.seen.get(n),
            (n) => foldedAt.seen.get(n),
          ),
        ],
        [
          '    folded -> status on the host',
          stage(
            (n) => foldedAt.seen.get(n),
            (n) => hostStatus.get(n),
          ),
        ],
      ];

      // flotilla apply, the bridge stopped; the status bucket's watch tells when each status was folded.
      const bridge = s.suite.processes.find((p) => p.name === 'kube-bridge')!;
      // What the bridge did for the kubectl part, to tell where its time went.
      const bridgeWork = await metricLines(bridge.httpPort, [
        'flotilla_kube_bridge_writes_total',
        'flotilla_kube_bridge_lost_writes_total',
        'flotilla_reconcile_total',
      ]);
      bridge.child.kill('SIGTERM');
      await bridge.exited;
      const viaFlotilla = new Timeline();
      const flotillaStatus = await firstPuts(bus.status, 'bench-flotilla');
      const flotillaDocs = docs('bench-flotilla');
      cpu.reset();
      viaFlotilla.start();
      const flotillaRuns = await timedApply(
        (onLine) =>
          main(['apply', '-f', '-'], {
            out: onLine,
            err: (t) => process.stderr.write(t),
            readStdin: async () => flotillaDocs,
            now: () => new Date(),
            env: s.env,
          }),
        (name, at) => viaFlotilla.answered(name, at),
      );
      await waitFor(() => flotillaStatus.seen.size >= OBJECTS, `${OBJECTS} statuses in Flotilla`, TIMEOUT_MS, 100);
      const flotillaCpu = cpu.since();
      flotillaStatus.stop();
      for (const [name, at] of flotillaStatus.seen) viaFlotilla.status.set(name, at);

      const k = viaKubectl.summary();
      const f = viaFlotilla.summary();
      const ratio = k.rate / f.rate;
      report(
        `kube-bridge: ${OBJECTS} CronFederatedHPAs (${NAMESPACES} namespaces) applied in one file, until their status is readable`,
        [
          [
            'kubectl apply (webhook, bridge)',
            `${fmt(k.totalMs)} ms  (${fmt(k.rate)}/s; kubectl done after ${fmt(viaKubectl.cliMs)} ms, ${kubectlRuns} run(s))`,
          ],
          ['  latency to status on the host', latencySummary(k.latencies)],
          [
            '  webhook served by',
            WEBHOOK_ON_API_PORT
              ? "the API port, on the gateway's event loop"
              : 'the webhook thread (GATEWAY_WEBHOOK_PORT)',
          ],
          ['  webhook answers (gateway)', webhook.gateway],
          ['  webhook calls (API server)', webhook.apiServer],
          ['  gateway event-loop delay', webhook.gatewayLoop],
          ...stages,
          ['flotilla apply', `${fmt(f.totalMs)} ms  (${fmt(f.rate)}/s; ${flotillaRuns} run(s))`],
          ['  latency to status in Flotilla', latencySummary(f.latencies)],
          ['kubectl / flotilla rate', `${fmt(ratio * 100)} %  (target >= 50 %: ${ratio >= 0.5 ? 'met' : 'missed'})`],
          ['CPU seconds, kubectl part', kubectlCpu],
          ['CPU seconds, flotilla part', flotillaCpu],
          ['kube-bridge during kubectl', bridgeWork],
          [
            'gateway, both parts',
            await metricLines(gatewayProcess.httpPort, ['flotilla_spec_reads_total', 'flotilla_api_requests_total']),
          ],
        ],
      );
    } finally {
      await bus.close();
      await s.stop();
    }
  } finally {
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The admission webhook's p99 target (issue 25): the gateway's answer to each call of the API server. */
const WEBHOOK_P99_TARGET_S = 0.01;

/**
 * The webhook's time as both ends measure it: the gateway's answer (`flotilla_api_request_duration_seconds`,
 * operation validate, from the request's headers to the answer) and the API server's call
 * (`apiserver_admission_webhook_admission_duration_seconds`: the connection and TLS too; its buckets are 5 ms, 25 ms,
 * 100 ms …, so its p99 is coarse).
 */
async function webhookTimes(cluster: KubeCluster, gatewayHttpPort: number | undefined) {
  if (gatewayHttpPort === undefined) throw new Error('the gateway has no metrics port');
  const gatewayPage = await (await fetch(`http://127.0.0.1:${gatewayHttpPort}/metrics`)).text();
  const apiServerPage = await cluster.kubectl(['get', '--raw', '/metrics']);
  if (apiServerPage.code !== 0) throw new Error(`the API server's /metrics: ${apiServerPage.stderr}`);
  const gauge = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(gatewayPage)?.[1]);
  return {
    // prom-client resets its event-loop delay histogram at every scrape: a reading covers the time since the last.
    gatewayLoopDelayMs: {
      p99: gauge('nodejs_eventloop_lag_p99_seconds') * 1000,
      max: gauge('nodejs_eventloop_lag_max_seconds') * 1000,
    },
    gateway: histogramBuckets(gatewayPage, 'flotilla_api_request_duration_seconds', { operation: 'validate' }),
    apiServer: histogramBuckets(apiServerPage.stdout, 'apiserver_admission_webhook_admission_duration_seconds', {
      type: 'validating',
    }),
  };
}

type WebhookTimes = Awaited<ReturnType<typeof webhookTimes>>;

/** Report rows for what the webhook's two histograms observed between two readings. */
function webhookRows(
  after: WebhookTimes,
  before: WebhookTimes,
): { gateway: string; apiServer: string; gatewayLoop: string } {
  const row = (b: Buckets, bounds: number[], note: string) => {
    if (observations(b) === 0) return 'no calls observed';
    const within = bounds.map((le) => `${fmt(shareAtMost(b, le) * 100, 2)} % within ${le * 1000} ms`).join(', ');
    return `p99 ${fmt(histogramQuantile(b, 0.99) * 1000, 2)} ms, ${within} (n=${observations(b)}; ${note})`;
  };
  const gateway = bucketsSince(after.gateway, before.gateway);
  const met = histogramQuantile(gateway, 0.99) <= WEBHOOK_P99_TARGET_S ? 'met' : 'missed';
  return {
    gateway: row(gateway, [WEBHOOK_P99_TARGET_S], `target p99 <= ${WEBHOOK_P99_TARGET_S * 1000} ms: ${met}`),
    apiServer: row(bucketsSince(after.apiServer, before.apiServer), [0.005, 0.025], 'connection and TLS included'),
    gatewayLoop: `p99 ${fmt(after.gatewayLoopDelayMs.p99, 2)} ms, max ${fmt(after.gatewayLoopDelayMs.max, 2)} ms (what an answer waits behind)`,
  };
}

/** The host's etcd and kube-apiserver, by the pids its record names. */
function clusterPids(cluster: KubeCluster): Record<string, number | undefined> {
  const record = JSON.parse(readFileSync(join(cluster.dir, 'cluster.json'), 'utf8')) as {
    pids: Record<string, number>;
  };
  return record.pids;
}

/**
 * CPU time of each process of a part (the services, the host's programs, kubectl, this process: the CLI and the
 * watches), from a starting point: where an object's cost goes, whatever else the machine runs meanwhile.
 */
class CpuUse {
  private start = new Map<string, number>();
  /** kubectl's last reading before it exited (procfs forgets a process once it is reaped). */
  kubectl = 0;
  private ownStart = process.cpuUsage();
  constructor(private readonly pids: Record<string, number | undefined>) {
    this.reset();
  }
  reset(): void {
    this.start = new Map(Object.entries(this.pids).map(([n, pid]) => [n, cpuOfPidSeconds(pid)]));
    this.ownStart = process.cpuUsage();
    this.kubectl = 0;
  }
  since(): string {
    const used = [...this.start].map(([n, t0]) => [n, cpuOfPidSeconds(this.pids[n]) - t0] as const);
    const own = process.cpuUsage(this.ownStart);
    used.push(['bench (CLI, watches)', (own.user + own.system) / 1e6]);
    if (this.kubectl > 0) used.push(['kubectl', this.kubectl]);
    const alive = used.filter(([, t]) => Number.isFinite(t));
    const total = alive.reduce((sum, [, t]) => sum + t, 0);
    return `${fmt(total)} in all: ${alive.map(([n, t]) => `${n} ${fmt(t)}`).join(', ')}`;
  }
}

/** The samples of some counters of a service, as `name{labels} value` separated by commas (zeros left out). */
async function metricLines(httpPort: number | undefined, names: string[]): Promise<string> {
  if (httpPort === undefined) return 'no metrics port';
  const text = await (await fetch(`http://127.0.0.1:${httpPort}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => names.some((n) => l.startsWith(`${n}{`) || l.startsWith(`${n} `)) && !/ 0$/.test(l))
    .map((l) => l.replace(/^flotilla_/, ''))
    .join(', ');
}

/** When each CronFederatedHPA in `prefix`'s namespaces was first written in a bucket (from now on), by name. */
async function firstPuts(kv: KV, prefix: string): Promise<{ seen: Map<string, number>; stop(): void }> {
  const seen = new Map<string, number>();
  const watch = await kv.watch({ key: 'CronFederatedHPA.>', include: KvWatchInclude.UpdatesOnly });
  void (async () => {
    for await (const e of watch) {
      const [, namespace = '', name = ''] = e.key.split('.');
      if (!namespace.startsWith(`${prefix}-`)) continue;
      if (e.operation === 'PUT' && !seen.has(name)) seen.set(name, performance.now());
    }
  })();
  return { seen, stop: () => watch.stop() };
}

function docs(namespace: string): string {
  return Array.from({ length: OBJECTS }, (_, i) => stringify(cronFhpa(namespace, i))).join('---\n');
}

/** The built kubectl, its stdout read line by line as it prints (the in-process helper only returns at the end). */
function runKubectl(kubeconfig: string, args: string[], onLine: (line: string) => void, cpu?: CpuUse): Promise<number> {
  const child = spawn(kubeProgram(kubeBinDir(), 'kubectl'), args, {
    env: { ...process.env, KUBECONFIG: kubeconfig },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const start = cpu?.kubectl ?? 0;
  const sample = setInterval(() => {
    const t = cpuOfPidSeconds(child.pid);
    if (cpu && Number.isFinite(t)) cpu.kubectl = start + t;
  }, 250);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  createInterface({ input: child.stdout }).on('line', onLine);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearInterval(sample);
      if (code !== 0) console.error(stderr);
      resolve(code ?? 1);
    }),
  );
}

async function memoryPart(): Promise<void> {
  const cluster = await hostCluster('bench-bridge-memory');
  try {
    await createNamespaces(cluster, namespaces('bench-memory'));
    const s = await startSuite(['gateway', 'kube-bridge'], {
      LOG_LEVEL: 'warn',
      LEADER_LEASE_MS: '10000',
      KUBE_BRIDGE_KUBECONFIG: cluster.kubeconfigPath,
    });
    try {
      const bridge = () => s.suite.processes.filter((p) => p.name === 'kube-bridge').at(-1)!;
      const sample = async () => {
        const p = bridge();
        const heap = await heapOfServiceMb(p.httpPort);
        return { rss: rssOfPidMb(p.child.pid), peak: rssOfPidMb(p.child.pid, 'VmHWM'), ...heap };
      };
      const mirrored = async () => {
        const text = await (await fetch(`http://127.0.0.1:${bridge().httpPort}/metrics`)).text();
        return Number(/^flotilla_objects\{kind="mirrored"[^}]*\} (\S+)/m.exec(text)?.[1] ?? 0);
      };
      await sleep(SETTLE_MS);
      const idle = await sample();

      const kc = new KubeConfig();
      kc.loadFromFile(cluster.kubeconfigPath);
      const objects = kc.makeApiClient(KubernetesObjectApi);
      const t0 = performance.now();
      const created = await mapLimited(
        Array.from({ length: MIRRORED }, (_, i) => i),
        32,
        (i) => objects.create(cronFhpa('bench-memory', i) as KubernetesObject),
      );
      if (created.some((r) => r.status === 'rejected')) throw new Error('a host create failed');
      await waitFor(async () => (await mirrored()) >= MIRRORED, `${MIRRORED} mirrored`, TIMEOUT_MS, 500);
      const mirroredMs = performance.now() - t0;
      await sleep(SETTLE_MS);
      const holding = await sample();

      const old = bridge();
      old.child.kill('SIGTERM');
      await old.exited;
      await s.suite.startService('kube-bridge');
      await waitFor(async () => (await mirrored()) >= MIRRORED, `${MIRRORED} mirrored after restart`, TIMEOUT_MS, 500);
      await sleep(SETTLE_MS);
      const restarted = await sample();

      const cell = (m: { rss: number; peak: number; heapUsed: number }) =>
        `${fmt(m.rss)} (peak ${fmt(m.peak)}, heap ${fmt(m.heapUsed)})`;
      // procfs counts KiB, the target is in MB (10^6 bytes)
      const peak = Math.max(holding.peak, restarted.peak) * 1.048576;
      report(
        `kube-bridge memory, MiB (VmRSS, VmHWM peak, V8 heap used): ${MIRRORED} CronFederatedHPAs in ${NAMESPACES} namespaces mirrored (created on the host and mirrored in ${fmt(mirroredMs / 1000)} s)`,
        [
          ['idle floor (leading, nothing to mirror)', cell(idle)],
          [`holding ${MIRRORED}`, cell(holding)],
          ['after a restart', cell(restarted)],
          [`target <= ${TARGET_MB} MB`, `${fmt(peak)} MB peak: ${peak <= TARGET_MB ? 'met' : 'missed'}`],
        ],
      );
    } finally {
      await s.stop();
    }
  } finally {
    await cluster.stop();
  }
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
console.log(`load average before: ${load()}`);
if (PARTS.has('apply')) await applyPart();
if (PARTS.has('memory')) await memoryPart();
console.log(`load average after: ${load()}`);
