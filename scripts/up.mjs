// The process supervisor behind scripts/up: starts the built services, applies examples/, streams their logs.
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { readdirSync } from 'node:fs';
import { DEFAULT_RESTART_POLICY, OPTIONAL_SERVICES, SERVICES, Suite } from '../packages/launcher/dist/index.js';
import { main as cli } from '../packages/cli/dist/main.js';

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

// Fixed /metrics ports (HTTP_BASE_PORT + 1, + 2, ... in start order), so a local Prometheus can scrape them.
const basePort = Number(process.env.HTTP_BASE_PORT ?? '9400');
const httpPorts = Object.fromEntries([...SERVICES, ...OPTIONAL_SERVICES].map((s, i) => [s, basePort + 1 + i]));
// kubectl as a front door when a host API server is given (its cluster needs deploy/crds/ applied).
const services = process.env.KUBE_BRIDGE_KUBECONFIG ? [...SERVICES, 'kube-bridge'] : undefined;

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

const suite = new Suite({
  root,
  ...(services ? { services } : {}),
  env,
  onOutput: show,
  serviceEnv: { gateway: { GATEWAY_API_PORT: process.env.GATEWAY_API_PORT ?? '8081' } },
  httpPorts,
  restart: DEFAULT_RESTART_POLICY,
  onLifecycle: lifecycle,
});
let stopping = false;
async function stop(code) {
  if (stopping) return;
  stopping = true;
  console.log('[up] stopping services ...');
  await suite.stop();
  process.exit(code);
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

try {
  await suite.start();
  console.log(`[up] services ready: ${suite.processes.map((p) => p.name).join(', ')}`);
  for (const p of suite.processes) console.log(`[up]   ${p.name.padEnd(20)} http://127.0.0.1:${p.httpPort}/metrics`);
  // Clusters first, and Ready before any workload: a first placement sees every cluster (Steady mode keeps it).
  const examples = join(root, 'examples');
  let code = await cli(['apply', '-f', join(examples, CLUSTERS)]);
  for (const name of ['member1', 'member2', 'member3'])
    code ||= await cli(['wait', '--for=condition=Ready', `cluster/${name}`, '--timeout', '30s']);
  const rest = readdirSync(examples)
    .filter((f) => /\.ya?ml$/.test(f) && f !== CLUSTERS && !(f in AFTER_SCHEDULING))
    .sort();
  code ||= await cli(['apply', ...rest.flatMap((f) => ['-f', join(examples, f)])]);
  for (const [cluster, workload, model, value] of LOADS)
    code ||= await cli(['cluster', 'load', cluster, '--workload', workload, model, value]);
  for (const [file, bindings] of Object.entries(AFTER_SCHEDULING)) {
    for (const rb of bindings) code ||= await cli(['wait', '--for=condition=Scheduled', rb, '--timeout', '60s']);
    code ||= await cli(['apply', '-f', join(examples, file)]);
  }
  if (code !== 0) console.log('[up] some examples were not applied (see above)');
  console.log(
    '[up] Flotilla is up. In another shell: pnpm exec flotilla get clusters   (Ctrl-C here stops everything)',
  );
} catch (err) {
  console.error(`[up] ${err.message}`);
  await stop(1);
}
