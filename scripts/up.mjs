// The process supervisor behind scripts/up: starts the built services, applies examples/, streams their logs. With
// UP_HA=1 (scripts/up --ha) it first starts a 3-node NATS cluster and Redis with Sentinel for them. With
// UP_KUBE_MEMBERS=N (scripts/up --kube N) the member clusters are real (scripts/kube-env) and examples/ goes through
// kubectl to a host API server with the CRDs and the webhook, mirrored in by the kube-bridge. With FLOTILLA_SEED_LOAD=1
// (scripts/up --seed-load) php-apache starts with days of simulated load already recorded (the launcher's seedLoad).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import {
  DEFAULT_RESTART_POLICY,
  OPTIONAL_SERVICES,
  SERVICES,
  seededLoadArgs,
  seedLoad,
  SEED_LOAD,
  Suite,
  webhookPki,
} from '../packages/launcher/dist/index.js';
import { main as cli } from '../packages/cli/dist/main.js';
import { PrivateNatsCluster, PrivateRedisSentinel } from '../packages/testkit/dist/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const env = {
  NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  FLOTILLA_PREFIX: process.env.FLOTILLA_PREFIX ?? 'flotilla',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
};

function show(service, line) {
  try {
    const j = JSON.parse(line);
    const extra = Object.entries(j)
      .filter(([k]) => !['level', 'time', 'pid', 'hostname', 'msg', 'service', 'name'].includes(k))
      .map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : v}`)
      .join(' ');
    console.log(`[${service}] ${j.msg ?? ''}${extra ? ` ${extra}` : ''}`);
  } catch {
    console.log(`[${service}] ${line}`);
  }
}

// Fixed /metrics ports (HTTP_BASE_PORT + 1, + 2, ... in start order), so a local Prometheus can scrape them;
// HTTP_BASE_PORT=0 gives each service a free port instead (a run beside others, as the tests start it, where a fixed
// port in the ephemeral range can be the local end of someone's connection).
const basePort = Number(process.env.HTTP_BASE_PORT ?? '9400');
const httpPorts =
  basePort === 0
    ? undefined
    : Object.fromEntries([...SERVICES, ...OPTIONAL_SERVICES].map((s, i) => [s, basePort + 1 + i]));
const run = promisify(execFile);
const kubeMembers = Number(process.env.UP_KUBE_MEMBERS ?? '0');
const memberNames = Array.from({ length: kubeMembers }, (_, i) => `member${i + 1}`);
const HOST = 'flotilla-host';
const kubeState = process.env.FLOTILLA_KUBE_STATE ?? join(tmpdir(), 'flotilla-kube-env');
const kubeconfigOf = (name) => join(kubeState, name, 'admin.kubeconfig');
const kubeEnv = async (...args) =>
  (await run('bash', [join(root, 'scripts', 'kube-env'), ...args], { maxBuffer: 1 << 24 })).stdout;
/** The clusters this run started with scripts/kube-env: stopped again on the way out. */
const startedKube = [];
let kubectlProgram;
async function kubectl(cluster, args, input) {
  kubectlProgram ??= join((await kubeEnv('path')).trim(), 'kubectl');
  const child = run(kubectlProgram, [`--kubeconfig=${kubeconfigOf(cluster)}`, ...args], { maxBuffer: 1 << 24 });
  if (input !== undefined) child.child.stdin.end(input);
  return (await child).stdout;
}
const gatewayPort = Number(process.env.GATEWAY_API_PORT ?? '8081');
const webhookDir = join(kubeState, 'up-webhook');

/** The host API server (the CRDs; its admission calls the gateway's /validate over mTLS) and the member clusters. */
async function startKubeClusters() {
  mkdirSync(webhookDir, { recursive: true, mode: 0o700 });
  const pki = await webhookPki(webhookDir, join(root, 'deploy'));
  console.log(`[up] starting the host API server and ${kubeMembers} member cluster(s) with scripts/kube-env ...`);
  process.stdout.write(
    await kubeEnv(
      'up',
      HOST,
      '--control-plane-only',
      `--apiserver-arg=--admission-control-config-file=${pki.admissionConfigPath}`,
    ),
  );
  startedKube.push(HOST);
  process.stdout.write(await kubeEnv('up', ...memberNames, '--cpu', '8', '--memory', '32Gi'));
  startedKube.push(...memberNames);
  await kubectl(HOST, ['apply', '-f', join(root, 'deploy', 'crds')]);
  await kubectl(HOST, ['wait', '--for=condition=Established', 'crd', '--all', '--timeout=60s']);
  return pki;
}

/** Set once the services' supervisor exists: a failure before it stops only the clusters. */
let suite;
/** UP_HA=1 (scripts/up --ha): the NATS cluster and the Redis with Sentinel this run started, stopped on the way out. */
const ha = {};

/**
 * No single point of failure on one machine: a 3-node JetStream cluster (streams and buckets at 3 replicas) and a
 * Redis primary with a replica and three Sentinels, on fixed loopback ports, their data in temporary folders.
 */
async function startHaServers() {
  console.log(
    '[up] starting a 3-node NATS JetStream cluster (clients on :4301-4303) and Redis with Sentinel ' +
      '(primary :6391, replica :6392, Sentinels :26391-26393) ...',
  );
  ha.nats = await PrivateNatsCluster.start({ basePorts: { client: 4301, route: 4311, monitor: 8301 } });
  ha.redis = await PrivateRedisSentinel.start({
    name: 'flotilla',
    ports: { primary: 6391, replica: 6392, sentinels: [26391, 26392, 26393] },
  });
  Object.assign(env, {
    NATS_URL: ha.nats.url,
    NATS_REPLICAS: '3',
    REDIS_URL: 'redis://127.0.0.1:6391',
    REDIS_SENTINELS: ha.redis.sentinelList,
    REDIS_SENTINEL_NAME: ha.redis.name,
  });
  // The CLI below (examples, waits) connects through the same list.
  process.env.NATS_URL = env.NATS_URL;
  console.log(`[up] NATS_URL=${env.NATS_URL} REDIS_SENTINELS=${env.REDIS_SENTINELS} REDIS_SENTINEL_NAME=flotilla`);
}
if (process.env.UP_HA === '1') await startHaServers().catch(failed);
const pki = kubeMembers ? await startKubeClusters().catch(failed) : undefined;
if (pki) env.KUBE_BRIDGE_KUBECONFIG = kubeconfigOf(HOST);
// kubectl as a front door when a host API server is given (its cluster needs deploy/crds/ applied); with real
// members, one kube member-agent per member is started below instead of the simulating one.
const services = process.env.KUBE_BRIDGE_KUBECONFIG
  ? [...SERVICES, 'kube-bridge']
  : pki
    ? [...SERVICES.filter((s) => s !== 'member-agent'), 'kube-bridge']
    : undefined;

function lifecycle(e) {
  if (e.type === 'exited') {
    const how = e.signal ? `signal ${e.signal}` : `code ${e.code}`;
    console.log(`[up] ${e.service} exited (${how}); restarting in ${(e.restartInMs / 1000).toFixed(1)} s`);
  } else if (e.type === 'restarted') console.log(`[up] ${e.service} restarted (metrics on :${e.httpPort})`);
  else
    console.log(`[up] ${e.service} failed to restart: ${e.error}; next try in ${(e.restartInMs / 1000).toFixed(1)} s`);
}

// examples/ holds one file per seed (README "Examples"); these say in which order scripts/up applies them.
const CLUSTERS = '00-clusters.yaml';
/** Applied once these bindings are scheduled: a WorkloadRebalancer that finds no binding records a failure. */
const AFTER_SCHEDULING = { '60-rebalance.yaml': ['rb/nginx-deployment', 'rb/web-deployment'] };
/** CPU demand in the simulated clusters, so that the FederatedHPA and the EffectiveHPA have load to act on. */
const LOADS = [
  ['member3', 'deploy/shop', '--sine', '0.8,0.6,10m'],
  ['member1', 'deploy/php-apache', '--sine', '0.3,0.25,15m'],
];

// FLOTILLA_SEED_LOAD=1 (scripts/up --seed-load): php-apache follows a working day, and days of it are recorded first.
const seedLoadOn = process.env.FLOTILLA_SEED_LOAD === '1';

suite = new Suite({
  root,
  ...(services ? { services } : {}),
  env,
  onOutput: show,
  serviceEnv: { gateway: pki ? pki.gatewayEnv(gatewayPort) : { GATEWAY_API_PORT: String(gatewayPort) } },
  httpPorts,
  restart: DEFAULT_RESTART_POLICY,
  onLifecycle: lifecycle,
});
let stopping = false;
async function stop(code) {
  if (stopping) return;
  stopping = true;
  console.log('[up] stopping services ...');
  await suite?.stop();
  if (startedKube.length) {
    console.log(`[up] stopping ${startedKube.join(', ')} (scripts/kube-env down) ...`);
    process.stdout.write(await kubeEnv('down', ...startedKube).catch((err) => `[up] ${err.message}\n`));
  }
  if (pki) rmSync(webhookDir, { recursive: true, force: true });
  if (ha.nats || ha.redis) console.log('[up] stopping the NATS cluster and Redis with Sentinel ...');
  await ha.nats?.dispose();
  await ha.redis?.dispose();
  process.exit(code);
}
async function failed(err) {
  console.error(`[up] ${err.message}`);
  await stop(1);
}

/** The kube path's examples: the same Clusters without `spec.simulation` (first N), the rest through kubectl. */
async function applyExamplesWithKubectl(examples, rest) {
  await kubectl(HOST, ['apply', '-f', '-'], pki.webhookOnLoopback(gatewayPort));
  const clusters = parseAllDocuments(readFileSync(join(examples, CLUSTERS), 'utf8'))
    .map((d) => d.toJS())
    .filter((c) => memberNames.includes(c?.metadata?.name))
    .map(({ spec: { simulation: _simulation, ...spec }, ...c }) => ({ ...c, spec }));
  await kubectl(HOST, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: clusters }));
  let code = 0;
  // Waited for on the host, where kubectl just created them: Flotilla's copy exists only once the kube-bridge has
  // mirrored it, so a wait there can start too early and find nothing; the bridge writes the Ready condition back.
  for (const name of memberNames) code ||= await kubectlWait(['--for=condition=Ready', `cluster/${name}`]);
  // The API server picks the webhook up from its informer: retried until kubectl's apply goes through.
  for (const file of rest) await applyWithRetry(file);
  for (const [file, bindings] of Object.entries(AFTER_SCHEDULING)) {
    for (const rb of bindings) code ||= await cli(['wait', '--for=condition=Scheduled', rb, '--timeout', '60s']);
    await applyWithRetry(file);
  }
  return code;

  async function kubectlWait(args) {
    try {
      process.stdout.write(await kubectl(HOST, ['wait', ...args, '--timeout=60s']));
      return 0;
    } catch (err) {
      console.error(`[up] kubectl wait ${args.join(' ')}: ${err.stderr ?? err.message}`);
      return 1;
    }
  }

  async function applyWithRetry(file) {
    for (let attempt = 1; ; attempt++) {
      try {
        process.stdout.write(await kubectl(HOST, ['apply', '-f', join(examples, file)]));
        return;
      } catch (err) {
        if (attempt >= 10) throw err;
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

try {
  await suite.start();
  console.log(`[up] services ready: ${suite.processes.map((p) => p.name).join(', ')}`);
  for (const p of suite.processes) console.log(`[up]   ${p.name.padEnd(20)} http://127.0.0.1:${p.httpPort}/metrics`);
  console.log(`[up] dashboard: ${pki ? 'https' : 'http'}://127.0.0.1:${gatewayPort}/dashboard/`);
  const examples = join(root, 'examples');
  const rest = readdirSync(examples)
    .filter((f) => /\.ya?ml$/.test(f) && f !== CLUSTERS && !(f in AFTER_SCHEDULING))
    .sort();
  if (pki) {
    if (seedLoadOn) console.log('[up] --seed-load seeds the simulated clusters only: ignored with --kube');
    for (const name of memberNames)
      await suite.startService('member-agent', {
        MEMBER_DRIVER: 'kube',
        KUBE_CLUSTER_NAME: name,
        KUBECONFIG: kubeconfigOf(name),
      });
    const code = await applyExamplesWithKubectl(examples, rest);
    if (code !== 0) console.log('[up] some examples were not applied (see above)');
    console.log(
      `[up] Flotilla is up on ${kubeMembers} real member cluster(s). In another shell: ` +
        `kubectl --kubeconfig=${kubeconfigOf(HOST)} get rb -A   (Ctrl-C here stops everything)`,
    );
  } else {
    // Clusters first, and Ready before any workload: a first placement sees every cluster (Steady mode keeps it).
    let code = await cli(['apply', '-f', join(examples, CLUSTERS)]);
    for (const name of ['member1', 'member2', 'member3'])
      code ||= await cli(['wait', '--for=condition=Ready', `cluster/${name}`, '--timeout', '30s']);
    // Before the EffectiveHPA: its first fit reads the history, and a fit without enough waits 12 h for the next.
    if (seedLoadOn) {
      const n = await seedLoad({ natsUrl: env.NATS_URL, prefix: env.FLOTILLA_PREFIX });
      console.log(`[up] seeded ${n} minutes (${SEED_LOAD.days} days) of php-apache's CPU usage`);
    }
    code ||= await cli(['apply', ...rest.flatMap((f) => ['-f', join(examples, f)])]);
    for (const [cluster, workload, model, value] of LOADS)
      if (!(seedLoadOn && workload === 'deploy/php-apache'))
        code ||= await cli(['cluster', 'load', cluster, '--workload', workload, model, value]);
    if (seedLoadOn) code ||= await cli(seededLoadArgs());
    for (const [file, bindings] of Object.entries(AFTER_SCHEDULING)) {
      for (const rb of bindings) code ||= await cli(['wait', '--for=condition=Scheduled', rb, '--timeout', '60s']);
      code ||= await cli(['apply', '-f', join(examples, file)]);
    }
    if (code !== 0) console.log('[up] some examples were not applied (see above)');
    console.log(
      '[up] Flotilla is up. In another shell: pnpm exec flotilla get clusters   (Ctrl-C here stops everything)',
    );
  }
} catch (err) {
  await failed(err);
}
