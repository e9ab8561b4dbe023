import { spawn } from 'node:child_process';
import { startKubeCluster } from '@flotilla/testkit/kube';
import { eventually } from '@flotilla/testkit';

/** What the kube end-to-end tests need of a member cluster. */
export interface MemberCluster {
  readonly name: string;
  readonly kubeconfigPath: string;
  kubectl(args: string[], opts?: { input?: string }): Promise<{ stdout: string; stderr: string; code: number }>;
  /** The member's API server stops answering (and comes back with `startApiServer`). */
  stopApiServer(): Promise<void>;
  startApiServer(): Promise<void>;
  stop(): Promise<void>;
}

function run(cmd: string, args: string[], input = ''): Promise<{ stdout: string; stderr: string; code: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ stdout, stderr, code: code ?? 1 }));
    child.stdin.end(input);
  });
}

/**
 * The member clusters of a kube end-to-end test. By default real control planes built from Kubernetes' Go modules
 * (@flotilla/testkit/kube, kwok playing the kubelets). With FLOTILLA_KIND_KUBECONFIGS (set by scripts/kind-e2e:
 * `name=path,...`, the member-agents' ServiceAccount kubeconfigs) and FLOTILLA_KIND_ADMIN_KUBECONFIGS (the test's
 * own kubectl) the kind clusters scripts/kind-e2e created, whose API server stops with `docker stop` of the
 * control-plane container.
 */
export async function memberClusters(clusters: Array<{ name: string; cpu: string }>): Promise<MemberCluster[]> {
  const names = clusters.map((c) => c.name);
  const kind = process.env.FLOTILLA_KIND_KUBECONFIGS;
  if (!kind)
    return Promise.all(
      clusters.map(({ name, cpu }) => startKubeCluster({ name, nodes: 1, cpu, memory: '16Gi', pods: 110 })),
    );
  const pairs = (v: string | undefined) => new Map((v ?? '').split(',').map((e) => e.split('=') as [string, string]));
  const paths = pairs(kind);
  const admins = pairs(process.env.FLOTILLA_KIND_ADMIN_KUBECONFIGS);
  return names.map((name): MemberCluster => {
    const kubeconfigPath = paths.get(name);
    if (!kubeconfigPath) throw new Error(`FLOTILLA_KIND_KUBECONFIGS: no kubeconfig for cluster ${name}`);
    const container = `flotilla-${name}-control-plane`;
    const admin = admins.get(name) ?? kubeconfigPath;
    const kubectl = (args: string[], opts: { input?: string } = {}) =>
      run('kubectl', [`--kubeconfig=${admin}`, ...args], opts.input);
    return {
      name,
      kubeconfigPath,
      kubectl,
      async stopApiServer() {
        const r = await run('docker', ['stop', container]);
        if (r.code !== 0) throw new Error(`docker stop ${container}: ${r.stderr}`);
      },
      async startApiServer() {
        const r = await run('docker', ['start', container]);
        if (r.code !== 0) throw new Error(`docker start ${container}: ${r.stderr}`);
        await eventually(
          async () => ((await kubectl(['get', '--raw', '/readyz'])).code === 0 ? true : undefined),
          120_000,
          `${name}: the API server answering /readyz again`,
        );
      },
      // scripts/kind-e2e deletes its clusters itself
      stop: async () => undefined,
    };
  });
}
