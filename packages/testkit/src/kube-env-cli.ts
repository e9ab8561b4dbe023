#!/usr/bin/env node
/**
 * The `up`, `down`, `stop`, `start` and `status` of scripts/kube-env (which builds the programs and passes
 * `--bin <dir>`):
 *
 *   up NAME[:SIZE]... [--nodes N] [--cpu C] [--memory M] [--pods P] [--metrics] [--control-plane-only]
 *      [--apiserver-arg=--FLAG=VALUE]... [--real-node [--pod-network]]
 *                      SIZE overrides the flags for one cluster: `big:cpu=8,memory=32Gi,nodes=2,pods=220`
 *   import NAME FILE... image archives into NAME's real node
 *   stop NAME...        the API server goes away (etcd keeps the data): the member is unreachable
 *   start NAME...       the API server comes back as it was, then the controller-manager and scheduler restart
 *   down [NAME...]      (default: every cluster `up` started)
 *   status
 *
 * Each cluster lives in <state>/<NAME> (FLOTILLA_KUBE_STATE, default <os tmpdir>/flotilla-kube-env): certificates,
 * its admin kubeconfig, logs, pid files and cluster.json, which `down` reads to stop exactly what `up` started.
 */
import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  KUBE_CLUSTER_DEFAULTS,
  type KubeCluster,
  cleanupRealNode,
  importImageArchive,
  type KubeClusterRecord,
  isRecordedAlive,
  kubeProgram,
  ManagedProcess,
  readKubeClusterRecord,
  recordedProcess,
  recordedProcesses,
  setRecordedProcess,
  startKubeCluster,
  stopPid,
  writeKubeClusterRecord,
} from './kube/index.js';

const stateRoot = () => process.env.FLOTILLA_KUBE_STATE ?? join(tmpdir(), 'flotilla-kube-env');

const usage = `usage: scripts/kube-env up NAME[:SIZE]... [--nodes N] [--cpu C] [--memory M] [--pods P] [--metrics] [--control-plane-only]
                          [--apiserver-arg=--FLAG=VALUE]... [--real-node [--pod-network]]   (SIZE: cpu=C,memory=M,nodes=N,pods=P for that cluster)
       scripts/kube-env import NAME FILE...
       scripts/kube-env stop NAME...
       scripts/kube-env start NAME...
       scripts/kube-env down [NAME...]
       scripts/kube-env status`;
const run = promisify(execFile);
/** How long `start` waits for the API server's /readyz (as the testkit does). */
const READY_TIMEOUT_MS = 90_000;
/** What `start` restarts after the API server, as a control-plane node's kubelet does when they lose their lease. */
const CONTROLLERS = ['kube-controller-manager', 'kube-scheduler'] as const;

function fail(message: string): never {
  process.stderr.write(`[kube-env] ${message}\n`);
  process.exit(1);
}

function wholeNumber(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) fail(`${flag}: must be a whole number, got ${JSON.stringify(value)}`);
  return Number(value);
}

async function records(names: string[]): Promise<KubeClusterRecord[]> {
  const root = stateRoot();
  const all = existsSync(root) ? await readdir(root) : [];
  const wanted = names.length ? names : all;
  const found: KubeClusterRecord[] = [];
  for (const name of wanted) {
    const record = await readKubeClusterRecord(join(root, name));
    if (record) found.push(record);
    else if (names.length) process.stderr.write(`[kube-env] ${name}: not up\n`);
  }
  return found;
}

async function stopRecord(record: KubeClusterRecord): Promise<void> {
  // The kubelet first (it would restart the pods), then everything in the real node's cgroup (containerd, its shims,
  // the pods), then the control plane.
  const kubelet = recordedProcess(record, 'kubelet');
  if (kubelet) await stopPid(kubelet);
  if (record.realNode) await cleanupRealNode({ dir: record.dir, cgroup: record.realNode.cgroup });
  const order = ['metrics-server', 'kwok', 'kube-scheduler', 'kube-controller-manager', 'kube-apiserver', 'etcd'];
  const programs = recordedProcesses(record)
    .filter(([name]) => order.includes(name))
    .sort(([a], [b]) => order.indexOf(a) - order.indexOf(b));
  for (const [, program] of programs) await stopPid(program);
  await rm(record.dir, { recursive: true, force: true });
}

type Size = { nodes?: string; cpu?: string; memory?: string; pods?: string };
const SIZE_KEYS = ['nodes', 'cpu', 'memory', 'pods'] as const;

/** `NAME` or `NAME:cpu=8,memory=32Gi`: one cluster's name and the sizes it sets apart from the flags. */
function parseMember(arg: string): { name: string; size: Size } {
  const [name = '', spec] = arg.split(/:(.*)/s, 2);
  const size: Size = {};
  if (spec === undefined) return { name, size };
  for (const pair of spec.split(',')) {
    const [key, value] = pair.split('=', 2) as [string, string | undefined];
    if (!(SIZE_KEYS as readonly string[]).includes(key) || !value)
      fail(`up: ${arg}: "${pair}" is not one of ${SIZE_KEYS.map((k) => `${k}=VALUE`).join(', ')}`);
    size[key as (typeof SIZE_KEYS)[number]] = value;
  }
  return { name, size };
}

async function up(
  args: string[],
  values: Record<string, string | boolean | string[] | undefined>,
  bin: string,
): Promise<void> {
  if (!args.length) fail(`up: name at least one cluster\n${usage}`);
  const members = args.map(parseMember);
  const names = members.map((m) => m.name);
  const duplicate = names.find((n, i) => names.indexOf(n) !== i);
  if (duplicate) fail(`up: ${duplicate} is named twice`);
  const root = stateRoot();
  for (const name of names) {
    const existing = await readKubeClusterRecord(join(root, name));
    if (existing && recordedProcesses(existing).some(([, p]) => isRecordedAlive(p)))
      fail(`up: ${name} is already up (${existing.server}); run scripts/kube-env down ${name} first`);
    if (existing) await stopRecord(existing);
  }
  const started: KubeCluster[] = [];
  try {
    for (const { name, size } of members) {
      const flag = (key: (typeof SIZE_KEYS)[number]) => size[key] ?? (values[key] as string | undefined);
      const cluster = await startKubeCluster({
        name,
        nodes: wholeNumber(flag('nodes'), size.nodes ? `${name}:nodes` : '--nodes'),
        cpu: flag('cpu'),
        memory: flag('memory'),
        pods: wholeNumber(flag('pods'), size.pods ? `${name}:pods` : '--pods'),
        extraApiServerArgs: values['apiserver-arg'] as string[] | undefined,
        metrics: values.metrics === true,
        controlPlaneOnly: values['control-plane-only'] === true,
        realNode: values['real-node'] === true,
        podNetwork: values['pod-network'] === true,
        binDir: bin,
        dir: join(root, name),
        outliveParent: true,
      });
      started.push(cluster);
      const seconds = ((cluster.timings.total ?? 0) / 1000).toFixed(1);
      const pods = cluster.podNetwork ? `\tpods ${cluster.podNetwork.subnet} via ${cluster.podNetwork.gateway}` : '';
      process.stdout.write(`${name}\t${cluster.server}\t${cluster.kubeconfigPath}\t(up in ${seconds} s)${pods}\n`);
    }
  } catch (err) {
    await Promise.all(started.map((c) => c.stop()));
    fail(`up: ${(err as Error).message}`);
  }
  process.stdout.write(
    `kubeconfigs: ${root}/<NAME>/admin.kubeconfig (e.g. export KUBECONFIG=${started[0]?.kubeconfigPath}); ` +
      'stop with scripts/kube-env down\n',
  );
}

/** The API server goes away; etcd, the controllers and kwok stay (they retry until it is back). */
async function stopApiServer(record: KubeClusterRecord): Promise<void> {
  const apiServer = recordedProcess(record, 'kube-apiserver');
  if (apiServer === undefined || !isRecordedAlive(apiServer)) {
    process.stdout.write(`${record.name}\tapi server already stopped\n`);
    return;
  }
  await stopPid(apiServer);
  setRecordedProcess(record, 'kube-apiserver', undefined);
  await writeKubeClusterRecord(record);
  process.stdout.write(
    `${record.name}\tapi server stopped (start it again with scripts/kube-env start ${record.name})\n`,
  );
}

/** Starts a recorded program again, detached, appending to its log; returns its pid. */
async function restart(record: KubeClusterRecord, name: string): Promise<ManagedProcess> {
  const command = record.commands?.[name];
  if (!command)
    fail(`start: ${record.name} has no recorded command for ${name} (started by an older kube-env): run down and up`);
  const previous = recordedProcess(record, name);
  if (previous !== undefined) await stopPid(previous);
  const p = new ManagedProcess({
    name,
    program: command.program,
    args: command.args,
    dir: record.dir,
    outliveParent: true,
  });
  await p.start();
  setRecordedProcess(record, name, p.pid);
  return p;
}

/** The API server comes back on its port with its data and arguments; then the controller-manager and scheduler. */
async function startApiServer(record: KubeClusterRecord, bin: string): Promise<void> {
  const running = recordedProcess(record, 'kube-apiserver');
  if (running !== undefined && isRecordedAlive(running)) {
    process.stdout.write(`${record.name}\tapi server already running\n`);
    return;
  }
  const etcd = recordedProcess(record, 'etcd');
  if (etcd === undefined || !isRecordedAlive(etcd)) fail(`start: ${record.name}: etcd is not running; run down and up`);
  const apiServer = await restart(record, 'kube-apiserver');
  await writeKubeClusterRecord(record);
  const kubectl = kubeProgram(bin, 'kubectl');
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const ready = await run(kubectl, [`--kubeconfig=${record.kubeconfigPath}`, 'get', '--raw=/readyz'], {
      timeout: 5000,
    }).then(
      () => true,
      () => false,
    );
    if (ready) break;
    if (apiServer.exitDescription)
      fail(`start: ${record.name}: kube-apiserver ${apiServer.exitDescription}:\n${apiServer.logTail()}`);
    if (Date.now() > deadline)
      fail(`start: ${record.name}: kube-apiserver not ready after ${READY_TIMEOUT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
  for (const name of CONTROLLERS) if (record.commands?.[name]) await restart(record, name);
  await writeKubeClusterRecord(record);
  process.stdout.write(`${record.name}\tapi server started\t${record.server}\n`);
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      bin: { type: 'string' },
      nodes: { type: 'string', default: String(KUBE_CLUSTER_DEFAULTS.nodes) },
      cpu: { type: 'string', default: KUBE_CLUSTER_DEFAULTS.cpu },
      memory: { type: 'string', default: KUBE_CLUSTER_DEFAULTS.memory },
      pods: { type: 'string', default: String(KUBE_CLUSTER_DEFAULTS.pods) },
      metrics: { type: 'boolean' },
      'control-plane-only': { type: 'boolean' },
      'real-node': { type: 'boolean' },
      'pod-network': { type: 'boolean' },
      'apiserver-arg': { type: 'string', multiple: true },
    },
  });
  switch (command) {
    case 'up':
      if (!values.bin) fail('up: --bin <dir of the built programs> is required (scripts/kube-env passes it)');
      return up(positionals, values, values.bin);
    case 'down': {
      for (const record of await records(positionals)) {
        await stopRecord(record);
        process.stdout.write(`${record.name}\tstopped\n`);
      }
      return;
    }
    case 'import': {
      const [name, ...files] = positionals;
      if (!name || !files.length) fail(`import: name a cluster and at least one image archive\n${usage}`);
      const [record] = await records([name]);
      if (!record) fail(`import: ${name} is not up`);
      if (!record.realNode)
        fail(`import: ${name} has no real node (start it with scripts/kube-env up ${name} --real-node)`);
      for (const file of files) {
        await importImageArchive(record.realNode.containerdSocket, file);
        process.stdout.write(`${name}\timported ${file}\n`);
      }
      return;
    }
    case 'stop':
    case 'start': {
      if (!positionals.length) fail(`${command}: name at least one cluster\n${usage}`);
      if (command === 'start' && !values.bin) fail('start: --bin <dir of the built programs> is required');
      const found = await records(positionals);
      if (found.length < positionals.length) process.exit(1);
      for (const record of found)
        if (command === 'stop') await stopApiServer(record);
        else await startApiServer(record, values.bin!);
      return;
    }
    case 'status': {
      const found = await records(positionals);
      if (!found.length) process.stdout.write('no cluster is up\n');
      for (const r of found) {
        const procs = recordedProcesses(r).map(([n, p]) => `${n}:${isRecordedAlive(p) ? 'running' : 'gone'}`);
        process.stdout.write(`${r.name}\t${r.server}\t${r.kubeconfigPath}\t${procs.join(' ')}\n`);
      }
      return;
    }
    default:
      fail(usage);
  }
}

main().catch((err: unknown) => fail((err as Error).stack ?? String(err)));
