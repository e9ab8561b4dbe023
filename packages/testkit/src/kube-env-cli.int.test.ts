import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { isAlive, kubeBinDir, readKubeClusterRecord, realNodeImage } from './kube/index.js';

const run = promisify(execFile);
const cli = fileURLToPath(new URL('./kube-env-cli.ts', import.meta.url));

// scripts/kube-env up/down/status run this CLI with --bin; here it runs from source (tsx) against a state folder
// of the test's own.
describe('kube-env CLI', () => {
  const state = mkdtempSync(join(tmpdir(), 'flotilla-kube-cli-'));
  const env = { ...process.env, FLOTILLA_KUBE_STATE: state };
  const kubeEnv = (...args: string[]) =>
    run(process.execPath, ['--import', 'tsx', cli, ...args], { env, timeout: 150_000 });
  afterAll(async () => {
    await kubeEnv('down').catch(() => undefined);
    rmSync(state, { recursive: true, force: true });
  }, 60_000);

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
