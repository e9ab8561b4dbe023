import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { isAlive, kubeBinDir, readKubeClusterRecord, realNodeImage } from './kube/index.js';

const run = promisify(execFile);
const cli = fileURLToPath(new URL('./kube-env-cli.ts', import.meta.url));

/** A state folder of the describe's own and the CLI run against it; after the describe, `down` and the folder goes. */
function kubeEnvCli() {
  const state = mkdtempSync(join(tmpdir(), 'flotilla-kube-cli-'));
  const env = { ...process.env, FLOTILLA_KUBE_STATE: state };
  const kubeEnv = (...args: string[]) =>
    run(process.execPath, ['--import', 'tsx', cli, ...args], { env, timeout: 150_000 });
  afterAll(async () => {
    await kubeEnv('down').catch(() => undefined);
    rmSync(state, { recursive: true, force: true });
  }, 60_000);
  return { state, kubeEnv };
}

// scripts/kube-env up/down/status run this CLI with --bin; here it runs from source (tsx) against a state folder
// of the test's own.
describe('kube-env CLI', () => {
  const { state, kubeEnv } = kubeEnvCli();

  it('starts a cluster per name with the nodes asked for, reports it, and down stops every process', async () => {
    const bin = kubeBinDir();
    const up = await kubeEnv(
      'up',
      '--bin',
      bin,
      'cli-a',
      '--nodes',
      '2',
      '--cpu',
      '3',
      '--memory',
      '2Gi',
      '--pods',
      '7',
    );
    const kubeconfig = join(state, 'cli-a', 'admin.kubeconfig');
    expect(up.stdout).toContain(`cli-a\thttps://127.0.0.1:`);
    expect(up.stdout).toContain(kubeconfig);

    const nodes = await run(join(bin, 'kubectl'), [
      `--kubeconfig=${kubeconfig}`,
      'get',
      'nodes',
      '-o',
      'jsonpath={range .items[*]}{.metadata.name}={.status.allocatable.cpu}/{.status.allocatable.memory}/{.status.allocatable.pods} {end}',
    ]);
    expect(nodes.stdout.trim().split(' ').sort()).toEqual(['cli-a-node-1=3/2Gi/7', 'cli-a-node-2=3/2Gi/7']);

    const again = await kubeEnv('up', '--bin', bin, 'cli-a').catch((err: { stderr: string }) => err);
    expect((again as { stderr: string }).stderr).toContain('cli-a is already up');

    const status = await kubeEnv('status');
    expect(status.stdout).toMatch(/cli-a\t.*etcd:running kube-apiserver:running/);

    const record = await readKubeClusterRecord(join(state, 'cli-a'));
    const pids = Object.values(record?.pids ?? {});
    expect(Object.keys(record?.pids ?? {}).sort()).toEqual(
      ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kwok'].sort(),
    );
    expect((await kubeEnv('down')).stdout).toBe('cli-a\tstopped\n');
    expect(pids.some(isAlive)).toBe(false);
    expect(existsSync(join(state, 'cli-a'))).toBe(false);
  }, 180_000);

  it('--real-node adds the real node, import puts an image into its containerd, and down stops it', async () => {
    const bin = kubeBinDir();
    await kubeEnv('up', '--bin', bin, 'cli-r', '--nodes', '0', '--real-node');
    const record = await readKubeClusterRecord(join(state, 'cli-r'));
    const cgroup = record?.realNode?.cgroup;
    expect(Object.keys(record?.pids ?? {})).toEqual(expect.arrayContaining(['kubelet', 'containerd']));
    const kubeconfig = join(state, 'cli-r', 'admin.kubeconfig');
    const ready = await run(join(bin, 'kubectl'), [
      `--kubeconfig=${kubeconfig}`,
      'get',
      'nodes',
      '-o',
      'jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status} {end}',
    ]);
    expect(ready.stdout.trim()).toBe('localhost=True');

    const busybox = realNodeImage(bin, 'busybox');
    expect((await kubeEnv('import', 'cli-r', busybox.archivePath)).stdout).toBe(
      `cli-r\timported ${busybox.archivePath}\n`,
    );
    const images = await run('ctr', [
      '--address',
      record?.realNode?.containerdSocket ?? '',
      '-n',
      'k8s.io',
      'images',
      'ls',
      '-q',
    ]);
    expect(images.stdout.split('\n')).toContain(busybox.ref);
    const noNode = (await kubeEnv('import', 'nope', busybox.archivePath).catch((e) => e)) as { stderr: string };
    expect(noNode.stderr).toContain('nope: not up');

    expect((await kubeEnv('status', 'cli-r')).stdout).toMatch(/containerd:running kubelet:running/);
    expect((await kubeEnv('down', 'cli-r')).stdout).toBe('cli-r\tstopped\n');
    expect(Object.values(record?.pids ?? {}).some(isAlive)).toBe(false);
    expect(existsSync(`/sys/fs/cgroup/pids/${cgroup}`)).toBe(false);
    expect(existsSync(join(state, 'cli-r'))).toBe(false);
  }, 180_000);

  it('refuses bad flags naming them', async () => {
    const err = (await kubeEnv('up', '--bin', kubeBinDir(), 'x', '--nodes', 'two').catch((e) => e)) as {
      stderr: string;
    };
    expect(err.stderr).toContain('--nodes: must be a whole number');
    const bad = (await kubeEnv('up', '--bin', kubeBinDir(), 'Bad_Name').catch((e) => e)) as { stderr: string };
    expect(bad.stderr).toContain('name: "Bad_Name" is not a DNS label');
  });
});

describe('kube-env CLI: stop, start, sizes and API server flags', () => {
  const { state, kubeEnv } = kubeEnvCli();
  const kubectl = (name: string, ...args: string[]) =>
    run(join(kubeBinDir(), 'kubectl'), [`--kubeconfig=${join(state, name, 'admin.kubeconfig')}`, ...args], {
      timeout: 60_000,
    });
  const cmdline = (pid: number | undefined) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');

  it('members of different sizes in one call; stop takes the API server away, start brings it back with its flags and fresh controllers', async () => {
    const bin = kubeBinDir();
    await kubeEnv('up', '--bin', bin, 'cli-b', 'cli-c:cpu=6,nodes=2', '--cpu', '3', '--apiserver-arg=--event-ttl=2h');
    const allocatable = async (name: string) =>
      (
        await kubectl(
          name,
          'get',
          'nodes',
          '-o',
          'jsonpath={range .items[*]}{.metadata.name}={.status.allocatable.cpu} {end}',
        )
      ).stdout
        .trim()
        .split(' ')
        .sort();
    expect(await allocatable('cli-b')).toEqual(['cli-b-node-1=3']);
    expect(await allocatable('cli-c')).toEqual(['cli-c-node-1=6', 'cli-c-node-2=6']);

    const before = await readKubeClusterRecord(join(state, 'cli-b'));
    expect(cmdline(before?.pids['kube-apiserver'])).toContain('--event-ttl=2h');

    expect((await kubeEnv('stop', 'cli-b')).stdout).toContain('cli-b\tapi server stopped');
    expect(isAlive(before!.pids['kube-apiserver']!)).toBe(false);
    expect(isAlive(before!.pids.etcd!)).toBe(true);
    await expect(kubectl('cli-b', 'get', '--raw=/readyz')).rejects.toThrow();
    // the other member is untouched
    expect((await kubectl('cli-c', 'get', '--raw=/readyz')).stdout).toBe('ok');

    expect((await kubeEnv('start', '--bin', bin, 'cli-b')).stdout).toContain('cli-b\tapi server started');
    expect((await kubectl('cli-b', 'get', '--raw=/readyz')).stdout).toBe('ok');
    const after = await readKubeClusterRecord(join(state, 'cli-b'));
    expect(cmdline(after?.pids['kube-apiserver'])).toContain('--event-ttl=2h');
    for (const name of ['kube-controller-manager', 'kube-scheduler']) {
      expect(after?.pids[name], name).not.toBe(before?.pids[name]);
      expect(isAlive(after!.pids[name]!), name).toBe(true);
      expect(isAlive(before!.pids[name]!), name).toBe(false);
    }
    // The restarted controller-manager and scheduler work: a Deployment's pod is created, bound and Running.
    await kubectl('cli-b', 'create', 'deployment', 'web', '--image=nginx');
    await kubectl('cli-b', 'wait', '--for=condition=Available', 'deployment/web', '--timeout=60s');
    expect((await kubeEnv('status')).stdout).toMatch(/cli-b\t.*kube-apiserver:running/);

    const down = await kubeEnv('down');
    expect(down.stdout.split('\n').sort().filter(Boolean)).toEqual(['cli-b\tstopped', 'cli-c\tstopped']);
    expect(Object.values(after!.pids).some(isAlive)).toBe(false);
  }, 240_000);

  it('refuses a bad size naming it, and stop or start of a cluster that is not up', async () => {
    const bad = (await kubeEnv('up', '--bin', kubeBinDir(), 'x:cpus=2').catch((e) => e)) as { stderr: string };
    expect(bad.stderr).toContain('x:cpus=2: "cpus=2" is not one of nodes=VALUE, cpu=VALUE, memory=VALUE, pods=VALUE');
    const missing = (await kubeEnv('stop', 'nope').catch((e) => e)) as { stderr: string; code: number };
    expect(missing.stderr).toContain('nope: not up');
    expect(missing.code).toBe(1);
  });
});
