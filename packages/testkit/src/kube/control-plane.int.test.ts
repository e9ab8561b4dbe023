import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../index.js';
import { type KubeCluster, startKubeCluster, validateKubeClusterOptions } from './cluster.js';
import { isAlive } from './processes.js';

describe('startKubeCluster options', () => {
  it('names every invalid field at once', () => {
    expect(() =>
      validateKubeClusterOptions({
        name: 'Not_A_Label',
        nodes: -1,
        cpu: 'four',
        memory: '8GB',
        pods: 0,
        extraApiServerArgs: ['v=4'],
        extraControllerManagerArgs: ['--v=2', 'x'],
      }),
    ).toThrow(
      /name: "Not_A_Label".*nodes: must be.*pods: must be.*cpu: "four".*memory: "8GB".*extraApiServerArgs\[0\].*extraControllerManagerArgs\[1\]/,
    );
    expect(() =>
      validateKubeClusterOptions({ name: 'a', controlPlaneOnly: true, extraControllerManagerArgs: ['--v=2'] }),
    ).toThrow('extraControllerManagerArgs: a controlPlaneOnly cluster runs no kube-controller-manager');
    expect(() => validateKubeClusterOptions({ name: 'a', controlPlaneOnly: true, metrics: true })).toThrow(
      'metrics: metrics-server needs nodes',
    );
  });
});

// A real etcd and kube-apiserver (scripts/kube-env build); without them this fails, it never skips.
describe('a control-plane-only cluster', () => {
  let cluster: KubeCluster;
  beforeAll(async () => {
    // ConfigMaps without the watch cache: their watches are served by etcd, so compacting it expires them.
    cluster = await startKubeCluster({
      name: 'cp-test',
      controlPlaneOnly: true,
      extraApiServerArgs: ['--watch-cache-sizes=configmaps#0'],
    });
  }, 120_000);
  afterAll(() => cluster?.stop(), 60_000);

  const kubectlOk = async (args: string[], opts?: { input?: string; kubeconfig?: string }) => {
    const res = await cluster.kubectl(args, opts);
    if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${res.stderr}`);
    return res.stdout;
  };

  it('serves the pinned Kubernetes version over HTTPS with a certificate of its own CA', async () => {
    expect(cluster.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const version = JSON.parse(await kubectlOk(['version', '-o', 'json'])) as { serverVersion: { gitVersion: string } };
    expect(version.serverVersion.gitVersion).toMatch(/^v1\.\d+\.\d+$/);
    expect(await kubectlOk(['get', '--raw', '/readyz'])).toBe('ok');
  });

  it('keeps its data across an API server stop and start on the same port', async () => {
    await kubectlOk(['create', 'namespace', 'keep']);
    await kubectlOk(['create', 'configmap', 'c1', '-n', 'keep', '--from-literal=k=v']);
    await cluster.stopApiServer();
    const down = await cluster.kubectl(['get', 'configmap', 'c1', '-n', 'keep', '--request-timeout=2s']);
    expect(down.code).not.toBe(0);
    expect(down.stderr).toMatch(/refused|Unable to connect/);
    await cluster.startApiServer();
    const cm = JSON.parse(await kubectlOk(['get', 'configmap', 'c1', '-n', 'keep', '-o', 'json'])) as {
      data: Record<string, string>;
    };
    expect(cm.data).toEqual({ k: 'v' });
  });

  it('compacts etcd past every resourceVersion so far: a watch from an older one gets 410 Gone', async () => {
    await kubectlOk(['create', 'configmap', 'compacted', '-n', 'default', '--from-literal=k=1']);
    const rvOf = async () =>
      (
        JSON.parse(await kubectlOk(['get', 'configmap', 'compacted', '-n', 'default', '-o', 'json'])) as {
          metadata: { resourceVersion: string };
        }
      ).metadata.resourceVersion;
    const before = await rvOf();
    const watchFrom = (rv: string) =>
      kubectlOk([
        'get',
        '--raw',
        `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}&timeoutSeconds=1`,
      ]);
    // Before compaction the watch replays from there (nothing changed since: no event, no error).
    expect(await watchFrom(before)).not.toContain('"ERROR"');
    const revision = await cluster.compactEtcd();
    expect(revision).toBeGreaterThan(Number(before));
    const expired = JSON.parse((await watchFrom(before)).trim().split('\n')[0]!) as {
      type: string;
      object: { code: number; reason: string };
    };
    expect(expired).toMatchObject({ type: 'ERROR', object: { code: 410, reason: 'Expired' } });
    // A watch from the current resourceVersion still works.
    await kubectlOk(['create', 'configmap', 'after', '-n', 'default']);
    const after = (
      JSON.parse(await kubectlOk(['get', 'configmap', 'after', '-n', 'default', '-o', 'json'])) as {
        metadata: { resourceVersion: string };
      }
    ).metadata.resourceVersion;
    expect(await watchFrom(after)).not.toContain('"ERROR"');
  });

  it('signs user certificates that the API server reads as user and groups, under RBAC', async () => {
    const alice = await cluster.userKubeconfig({ name: 'alice', groups: ['team-a', 'auditors'] });
    const whoami = JSON.parse(await kubectlOk(['auth', 'whoami', '-o', 'json'], { kubeconfig: alice })) as {
      status: { userInfo: { username: string; groups: string[] } };
    };
    expect(whoami.status.userInfo.username).toBe('alice');
    expect(whoami.status.userInfo.groups).toEqual(expect.arrayContaining(['team-a', 'auditors']));

    const denied = await cluster.kubectl(['get', 'configmaps', '-n', 'default'], { kubeconfig: alice });
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain('User "alice" cannot list resource "configmaps"');

    // A Role of its own: the aggregated ClusterRoles (view, edit, admin) stay empty without the controller-manager.
    await kubectlOk(['create', 'role', 'cm-reader', '-n', 'default', '--verb=get,list', '--resource=configmaps']);
    await kubectlOk(['create', 'rolebinding', 'team-a-read', '-n', 'default', '--role=cm-reader', '--group=team-a']);
    await eventually(
      async () =>
        (await cluster.kubectl(['get', 'configmaps', '-n', 'default'], { kubeconfig: alice })).code === 0
          ? true
          : undefined,
      10_000,
      'the RoleBinding to take effect',
    );
    await expect(cluster.userKubeconfig({ name: 'a/b' })).rejects.toThrow('user.name');
    await expect(cluster.userKubeconfig({ name: 'bob', groups: [''] })).rejects.toThrow('user.groups[0]');
  });

  it('stop() ends every process it started and removes its folder', async () => {
    const record = JSON.parse((await import('node:fs')).readFileSync(`${cluster.dir}/cluster.json`, 'utf8')) as {
      pids: Record<string, number>;
    };
    const pids = Object.values(record.pids);
    expect(pids.length).toBe(2);
    expect(pids.every(isAlive)).toBe(true);
    await cluster.stop();
    expect(pids.some(isAlive)).toBe(false);
    expect(existsSync(cluster.dir)).toBe(false);
  });
});
