// Flotilla's Helm chart on a scripts/kube-env host cluster whose real node runs the pods on a pod network of its own
// (startKubeCluster({ realNode, podNetwork })): the images, NATS and Redis beside the chart, and the Secrets it reads.
// Shared by test/helm-real-node.e2e (the seeds through the chart) and bench/chart-memory (10,000 objects through it).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { WebhookPki } from '@flotilla/launcher';
import { freeTcpPort } from '@flotilla/testkit';
import { type KubeCluster, kubeBinDir } from '@flotilla/testkit/kube';
import { FLOTILLA_IMAGE, buildFlotillaImage, docker } from './docker.js';
import { ROOT } from './suite.js';

const run = promisify(execFile);

/** Where the chart installs Flotilla, as the README's `helm install` does. */
export const CHART_NAMESPACE = 'flotilla-system';
export const CHART = join(ROOT, 'deploy', 'helm', 'flotilla');

/** kubectl on `cluster`; throws with its stderr on failure. */
export async function kubectlOk(cluster: KubeCluster, args: string[], input?: string): Promise<string> {
  const res = await cluster.kubectl(args, input === undefined ? {} : { input });
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')} (${cluster.name}): ${res.stderr}`);
  return res.stdout;
}

/** The built helm against `host`. */
export const helmOn =
  (host: KubeCluster) =>
  async (args: string[]): Promise<string> => {
    const { stdout } = await run(join(kubeBinDir(), 'helm'), [...args, `--kubeconfig=${host.kubeconfigPath}`], {
      maxBuffer: 64 << 20,
      timeout: 600_000,
    });
    return stdout;
  };

/** Builds Flotilla's image from the Dockerfile and saves it, with scripts/docker-env's nats:2 and redis:7, for containerd. */
export async function saveChartImages(dir: string): Promise<string> {
  await buildFlotillaImage();
  const archive = join(dir, 'images.tar');
  await docker(['save', '-o', archive, FLOTILLA_IMAGE, 'nats:2', 'redis:7'], { timeoutMs: 300_000 });
  return archive;
}

/** The chart's values for the image imported into the node (never pulled). */
export function imageValues(): string[] {
  const [repository, tag] = FLOTILLA_IMAGE.split(':');
  return ['--set', `image.repository=${repository}`, '--set', `image.tag=${tag}`, '--set', 'image.pullPolicy=Never'];
}

/**
 * NATS and Redis from deploy/real-node/nats-redis.yaml, on ports of this run's own at the pod network's gateway
 * (where the pods and the machine reach them), once both are Available. Creates the namespace.
 */
export async function startCompanions(host: KubeCluster): Promise<{ natsUrl: string; redisUrl: string }> {
  const gateway = host.podNetwork?.gateway;
  if (!gateway) throw new Error(`cluster ${host.name} has no pod network: start it with realNode and podNetwork`);
  const [natsPort, redisPort] = [await freeTcpPort(), await freeTcpPort()];
  await kubectlOk(host, ['create', 'namespace', CHART_NAMESPACE]);
  await kubectlOk(
    host,
    ['apply', '-f', '-'],
    readFileSync(join(ROOT, 'deploy', 'real-node', 'nats-redis.yaml'), 'utf8')
      .replaceAll('14222', String(natsPort))
      .replaceAll('16379', String(redisPort))
      .replaceAll('127.0.0.1', gateway),
  );
  await kubectlOk(host, [
    'wait',
    '--for=condition=Available',
    'deployment/nats',
    'deployment/redis',
    '-n',
    CHART_NAMESPACE,
    '--timeout=90s',
  ]);
  return { natsUrl: `nats://${gateway}:${natsPort}`, redisUrl: `redis://${gateway}:${redisPort}` };
}

/** The admin token of the gateway's tokens Secret. */
export const GATEWAY_ADMIN_TOKEN = 't'.repeat(32);

/**
 * The Secrets the chart reads: the connections, the gateway's serving certificate and tokens, the API server's client
 * CA (when the webhook checks it) and each member's kubeconfig.
 */
export async function createChartSecrets(
  host: KubeCluster,
  o: {
    natsUrl: string;
    redisUrl: string;
    pki: WebhookPki;
    clientCa?: boolean;
    members?: Array<{ name: string; kubeconfigPath: string }>;
  },
): Promise<void> {
  const secret = (args: string[]) => kubectlOk(host, ['create', 'secret', ...args, '-n', CHART_NAMESPACE]);
  await secret([
    'generic',
    'flotilla-connections',
    `--from-literal=NATS_URL=${o.natsUrl}`,
    `--from-literal=REDIS_URL=${o.redisUrl}`,
  ]);
  await secret([
    'tls',
    'flotilla-gateway-tls',
    `--cert=${join(o.pki.dir, 'gateway.crt')}`,
    `--key=${join(o.pki.dir, 'gateway.key')}`,
  ]);
  await secret(['generic', 'flotilla-gateway-tokens', `--from-literal=tokens.csv=${GATEWAY_ADMIN_TOKEN},admin,helm\n`]);
  if (o.clientCa)
    await secret(['generic', 'flotilla-apiserver-client-ca', `--from-file=ca.crt=${join(o.pki.dir, 'client-ca.crt')}`]);
  for (const m of o.members ?? [])
    await secret(['generic', `flotilla-member-kubeconfig-${m.name}`, `--from-file=kubeconfig=${m.kubeconfigPath}`]);
}
