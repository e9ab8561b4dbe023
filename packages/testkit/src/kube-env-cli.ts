#!/usr/bin/env node
/**
 * The `up`, `down` and `status` of scripts/kube-env (which builds the programs and passes `--bin <dir>`):
 *
 *   up NAME... [--nodes N] [--cpu C] [--memory M] [--pods P] [--metrics] [--control-plane-only] [--real-node]
 *   import NAME FILE... (image archives into NAME's real node)
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
import {
  KUBE_CLUSTER_DEFAULTS,
  type KubeCluster,
  cleanupRealNode,
  importImageArchive,
  type KubeClusterRecord,
  isAlive,
  readKubeClusterRecord,
  startKubeCluster,
  stopPid,
} from './kube/index.js';

const stateRoot = () => process.env.FLOTILLA_KUBE_STATE ?? join(tmpdir(), 'flotilla-kube-env');

const usage = `usage: scripts/kube-env up NAME... [--nodes N] [--cpu C] [--memory M] [--pods P] [--metrics] [--control-plane-only] [--real-node]
       scripts/kube-env import NAME FILE...
       scripts/kube-env down [NAME...]
       scripts/kube-env status`;

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
  if (record.pids.kubelet) await stopPid(record.pids.kubelet);
  if (record.realNode) await cleanupRealNode({ dir: record.dir, cgroup: record.realNode.cgroup });
  const order = ['metrics-server', 'kwok', 'kube-scheduler', 'kube-controller-manager', 'kube-apiserver', 'etcd'];
  const pids = Object.entries(record.pids)
    .filter(([name]) => order.includes(name))
    .sort(([a], [b]) => order.indexOf(a) - order.indexOf(b));
  for (const [, pid] of pids) await stopPid(pid);
  await rm(record.dir, { recursive: true, force: true });
}

async function up(names: string[], values: Record<string, string | boolean | undefined>, bin: string): Promise<void> {
  if (!names.length) fail(`up: name at least one cluster\n${usage}`);
  const duplicate = names.find((n, i) => names.indexOf(n) !== i);
  if (duplicate) fail(`up: ${duplicate} is named twice`);
  const root = stateRoot();
  for (const name of names) {
    const existing = await readKubeClusterRecord(join(root, name));
    if (existing && Object.values(existing.pids).some(isAlive))
      fail(`up: ${name} is already up (${existing.server}); run scripts/kube-env down ${name} first`);
    if (existing) await stopRecord(existing);
  }
  const started: KubeCluster[] = [];
  try {
    for (const name of names) {
      const cluster = await startKubeCluster({
        name,
        nodes: wholeNumber(values.nodes as string | undefined, '--nodes'),
        cpu: values.cpu as string | undefined,
        memory: values.memory as string | undefined,
        pods: wholeNumber(values.pods as string | undefined, '--pods'),
        metrics: values.metrics === true,
        controlPlaneOnly: values['control-plane-only'] === true,
        realNode: values['real-node'] === true,
        binDir: bin,
        dir: join(root, name),
        outliveParent: true,
      });
      started.push(cluster);
      const seconds = ((cluster.timings.total ?? 0) / 1000).toFixed(1);
      process.stdout.write(`${name}\t${cluster.server}\t${cluster.kubeconfigPath}\t(up in ${seconds} s)\n`);
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
    case 'status': {
      const found = await records(positionals);
      if (!found.length) process.stdout.write('no cluster is up\n');
      for (const r of found) {
        const procs = Object.entries(r.pids).map(([n, pid]) => `${n}:${isAlive(pid) ? 'running' : 'gone'}`);
        process.stdout.write(`${r.name}\t${r.server}\t${r.kubeconfigPath}\t${procs.join(' ')}\n`);
      }
      return;
    }
    default:
      fail(usage);
  }
}

main().catch((err: unknown) => fail((err as Error).stack ?? String(err)));
