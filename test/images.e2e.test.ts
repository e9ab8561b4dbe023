// Flotilla's image under testcontainers, as the design names it: each service's container, from the one image run as
// its non-root user with a read-only root filesystem, becomes ready against NATS and Redis containers on a network
// the test creates (kube-bridge also against a real host API server); refuses to start with an error naming the variable on bad configuration; and stops cleanly on
// SIGTERM within compose's grace period. The base images are scripts/docker-env's, the image is `docker build` of the
// root Dockerfile; nothing is pulled, and the test removes every container and network it started (no Ryuk reaper:
// there is no registry to fetch its image from).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_CATALOGUE, SERVICE_NAMES, type ServiceName } from '@flotilla/catalogue';
import {
  GenericContainer,
  Network,
  type StartedNetwork,
  type StartedTestContainer,
  Wait,
  getContainerRuntimeClient,
} from 'testcontainers';
import { eventually, freeTcpPort, scaled } from '@flotilla/testkit';
import { type KubeCluster, startKubeCluster } from '@flotilla/testkit/kube';
import { FLOTILLA_IMAGE, buildFlotillaImage, docker, requireDockerEngine } from './support/docker.js';
import { ROOT } from './support/suite.js';

process.env.TESTCONTAINERS_RYUK_DISABLED = 'true';
// Published ports are reached on the host's loopback. Without this, testcontainers running inside a container (as CI
// does) looks for the gateway of the engine's default bridge, which scripts/docker-env's engine does not have.
process.env.TESTCONTAINERS_HOST_OVERRIDE ??= '127.0.0.1';

/** docker compose's stop grace period (`stop_grace_period` default): SIGTERM, then SIGKILL after this long. */
const GRACE_SECONDS = 10;
const HEALTH_PORT = 8080;

/** One variable each service validates itself, set to a value it must refuse. */
const BAD_SETTING: Record<ServiceName, [string, string]> = {
  gateway: ['GATEWAY_API_PORT', 'not-a-port'],
  'status-writer': ['STATUS_WRITER_CONCURRENCY', '0'],
  'member-agent': ['MEMBER_DRIVER', 'bogus'],
  'affinity-scheduler': ['FAILOVER_GRACE_MS', 'soon'],
  'cron-scheduler': ['CRON_DEFAULT_TIME_ZONE', 'Not/AZone'],
  rebalancer: ['REBALANCER_CONCURRENCY', '0'],
  'hpa-assigner': ['FHPA_SYNC_PERIOD_MS', 'soon'],
  'kube-bridge': ['KUBE_BRIDGE_CONCURRENCY', '0'],
};

/** The services that become ready on NATS and Redis alone (kube-bridge also needs a host API server: its own test). */
const ON_NATS_AND_REDIS = SERVICE_NAMES.filter((s) => !SERVICE_CATALOGUE[s].optional);

/** A container of Flotilla's image as users run it: the image's own user, nothing writable but its tmpfs. */
class ServiceContainer extends GenericContainer {
  constructor(service: ServiceName, env: Record<string, string>) {
    super(FLOTILLA_IMAGE);
    this.withCommand(['node', `services/${service}/dist/main.js`])
      .withEnvironment(env)
      .withTmpFs({ '/tmp': 'rw,noexec,nosuid,size=16m' })
      .withLabels({ 'org.flotilla.test': 'images.e2e' });
    this.hostConfig.ReadonlyRootfs = true;
  }

  /** Starts the container and waits until Docker's healthcheck on its /readyz (at `port`) passes. */
  async startReady(port: number): Promise<StartedTestContainer> {
    const container = await this.withHealthCheck(readyzHealthCheck(port))
      .withWaitStrategy(Wait.forHealthCheck())
      .withStartupTimeout(120_000)
      .start();
    started.push(container);
    return container;
  }
}

/**
 * Server containers are reached by their names on the test's network, not by network aliases: testcontainers creates
 * a container with aliases on the engine's default bridge and connects it to the network afterwards, and on an engine
 * without a default bridge (scripts/docker-env's) such a container is never reachable.
 */
const run = randomBytes(3).toString('hex');
const NATS_HOST = `flotilla-img-${run}-nats`;
const REDIS_HOST = `flotilla-img-${run}-redis`;

let network: StartedNetwork;
const servers: StartedTestContainer[] = [];
const started: StartedTestContainer[] = [];

/**
 * Secrets a user may leave in the working directory, one at the top and one inside a directory the build copies:
 * .dockerignore must keep each out of the build context, so out of every layer of the image.
 */
const DECOYS = [`decoy-${run}.kubeconfig`, `tokens-decoy-${run}.csv`, `packages/bus/src/decoy-${run}.key`];

beforeAll(async () => {
  await requireDockerEngine();
  for (const decoy of DECOYS) writeFileSync(join(ROOT, decoy), 'not for an image\n');
  const image = await buildFlotillaImage().finally(() => {
    for (const decoy of DECOYS) rmSync(join(ROOT, decoy), { force: true });
  });
  console.log(`docker build: ${image.seconds.toFixed(1)} s, image ${(image.sizeBytes / 1e6).toFixed(0)} MB`);
  network = await new Network().start();
  const [nats, redis] = await Promise.all([
    new GenericContainer('nats:2')
      .withCommand(['-js'])
      .withName(NATS_HOST)
      .withNetwork(network)
      .withWaitStrategy(Wait.forLogMessage('Server is ready'))
      .start(),
    new GenericContainer('redis:7')
      .withCommand(['redis-server', '--save', '', '--appendonly', 'no'])
      .withName(REDIS_HOST)
      .withNetwork(network)
      .withWaitStrategy(Wait.forLogMessage('Ready to accept connections'))
      .start(),
  ]);
  servers.push(nats, redis);
}, scaled(1_260_000));

afterAll(async () => {
  // Also after a failure: every container and the network go.
  await Promise.allSettled([...started, ...servers].map((c) => c.stop()));
  await network?.stop();
}, scaled(120_000));

describe("the image's platform and labels", () => {
  it(".nvmrc's Node runs in it, and it names its version (the chart's appVersion), commit and source", async () => {
    const nvmrc = readFileSync(join(ROOT, '.nvmrc'), 'utf8').trim();
    const { stdout: nodeVersion } = await docker(['run', '--rm', '--network', 'none', FLOTILLA_IMAGE, 'node', '-v']);
    expect(nodeVersion.trim()).toBe(`v${nvmrc}`);
    const { stdout } = await docker(['image', 'inspect', '--format', '{{json .Config.Labels}}', FLOTILLA_IMAGE]);
    const labels = JSON.parse(stdout) as Record<string, string>;
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const chart = readFileSync(join(ROOT, 'deploy', 'helm', 'flotilla', 'Chart.yaml'), 'utf8');
    expect(labels['org.opencontainers.image.version']).toBe(pkg.version);
    expect(chart).toContain(`appVersion: "${pkg.version}"`);
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    expect(labels['org.opencontainers.image.revision']).toMatch(new RegExp(`^${head}(-dirty)?$`));
    expect(labels['org.opencontainers.image.source']).toMatch(/^https:\/\/\S+[^/]$/);
  });
});

function serviceEnv(service: ServiceName): Record<string, string> {
  return {
    NATS_URL: `nats://${NATS_HOST}:4222`,
    REDIS_URL: `redis://${REDIS_HOST}:6379`,
    FLOTILLA_PREFIX: `img-${run}-${service}`,
    HTTP_HOST: '0.0.0.0',
    HTTP_PORT: String(HEALTH_PORT),
    LEADER_LEASE_MS: '5000',
  };
}

/** Docker's healthcheck on the service's /readyz (the image has no curl or wget: node's fetch, as in compose). */
function readyzHealthCheck(port: number): Parameters<GenericContainer['withHealthCheck']>[0] {
  return {
    test: [
      'CMD',
      'node',
      '-e',
      `fetch('http://127.0.0.1:${port}/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))`,
    ],
    interval: 1_000,
    timeout: 3_000,
    retries: 120,
    startPeriod: 1_000,
  };
}

/** Asserts the container runs as uid 1000 on a read-only root filesystem with /readyz answering 200. */
async function expectReadyAndLockedDown(container: StartedTestContainer, port: number): Promise<void> {
  // Readiness may close for a moment after the health check passed (a JetStream request or a watch that failed under
  // load closes its gate until the next try), as a kubelet's probe tolerates with its failureThreshold: it must be
  // open again within the probe's tolerance, and what closed it is printed.
  await eventually(
    async () => {
      const ready = await container.exec([
        'node',
        '-e',
        `fetch('http://127.0.0.1:${port}/readyz').then(async (r) => console.log(r.status, await r.text()))`,
      ]);
      if (ready.output.trim().startsWith('200')) return true;
      console.log(`/readyz of ${container.getName()}: ${ready.output.trim()}`);
      return undefined;
    },
    30_000,
    `/readyz of ${container.getName()} to answer 200`,
  );
  const whoami = await container.exec(['id', '-u']);
  expect(whoami.output.trim()).toBe('1000');
  const write = await container.exec(['sh', '-c', 'touch /app/probe']);
  expect(write.exitCode).not.toBe(0);
  expect(write.output).toContain('Read-only file system');
}

/** SIGTERM with compose's grace period: the service must exit 0 (not 137, killed at its end) and say so. */
async function expectCleanStop(container: StartedTestContainer): Promise<void> {
  const stopping = performance.now();
  await container.stop({ timeout: GRACE_SECONDS * 1000, remove: false });
  const seconds = (performance.now() - stopping) / 1000;
  const state = await exitState(container);
  const logs = await logsOf(container);
  expect(state.ExitCode, logs).toBe(0);
  expect(state.OOMKilled).toBe(false);
  expect(seconds).toBeLessThan(GRACE_SECONDS);
  expect(logs).toContain('"msg":"stopping"');
  expect(logs).toContain('"msg":"stopped"');
  const client = await getContainerRuntimeClient();
  await client.container.remove(client.container.getById(container.getId()), { removeVolumes: true });
  started.splice(started.indexOf(container), 1);
}

async function inspect(container: StartedTestContainer) {
  const client = await getContainerRuntimeClient();
  return client.container.inspect(client.container.getById(container.getId()));
}

/** Everything a container printed, once it has exited (the log stream ends with it). */
async function logsOf(container: StartedTestContainer): Promise<string> {
  const stream = await container.logs();
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text;
}

async function exitState(container: StartedTestContainer) {
  return eventually(
    async () => {
      const { State } = await inspect(container);
      return State.Running ? undefined : State;
    },
    30_000,
    'the container to exit',
  );
}

describe('the Flotilla image under testcontainers', () => {
  it('runs as a non-root numeric user', async () => {
    const { stdout } = await docker(['image', 'inspect', '--format', '{{.Config.User}}', FLOTILLA_IMAGE]);
    expect(stdout.trim()).toBe('1000:1000');
  });

  it('holds what runs and nothing else: no secret from the build context, no sources, tests or tsconfig', async () => {
    const { stdout } = await docker([
      'run',
      '--rm',
      '--network',
      'none',
      '--entrypoint',
      'sh',
      FLOTILLA_IMAGE,
      '-c',
      `find / -xdev -name '*decoy-${run}*'; find /app -name node_modules -prune -o \\( -name src -o -name 'tsconfig*.json' -o -name '*.test.*' -o -name '*.tsbuildinfo' \\) -print`,
    ]);
    expect(stdout.trim()).toBe('');
    const listed = await docker(['run', '--rm', '--network', 'none', '--entrypoint', 'ls', FLOTILLA_IMAGE, '/app']);
    expect(listed.stdout.split('\n').filter(Boolean).sort()).toEqual([
      'examples',
      'node_modules',
      'package.json',
      'packages',
      'services',
    ]);
  });

  it.each(ON_NATS_AND_REDIS)(
    '%s: becomes ready against the NATS and Redis containers, then stops cleanly on SIGTERM within the grace period',
    async (service) => {
      const container = await new ServiceContainer(service, serviceEnv(service))
        .withNetwork(network)
        .startReady(HEALTH_PORT);
      await expectReadyAndLockedDown(container, HEALTH_PORT);
      await expectCleanStop(container);
    },
    scaled(180_000),
  );

  it(
    'kube-bridge: becomes ready against the NATS and Redis containers and a real host API server, then stops cleanly on SIGTERM',
    async () => {
      // The API server listens on the host's loopback, so this container shares the host's network; it reaches the NATS
      // and Redis containers at their addresses on the test's network, which the host routes to.
      const dir = mkdtempSync(join(tmpdir(), 'flotilla-img-'));
      let host: KubeCluster | undefined;
      try {
        host = await startKubeCluster({ name: `img-${run}`, controlPlaneOnly: true });
        const applied = await host.kubectl(['apply', '-f', join(ROOT, 'deploy', 'crds')]);
        expect(applied.code, applied.stderr).toBe(0);
        await host.waitCrdsEstablished();
        // Readable by the image's user (the cluster's own copy is the test user's alone).
        const kubeconfig = join(dir, 'host.kubeconfig');
        copyFileSync(host.kubeconfigPath, kubeconfig);
        chmodSync(kubeconfig, 0o644);
        const [nats, redis] = servers.map((c) => c.getIpAddress(network.getName()));
        const port = await freeTcpPort();
        const container = await new ServiceContainer('kube-bridge', {
          ...serviceEnv('kube-bridge'),
          NATS_URL: `nats://${nats}:4222`,
          REDIS_URL: `redis://${redis}:6379`,
          HTTP_HOST: '127.0.0.1',
          HTTP_PORT: String(port),
          KUBE_BRIDGE_KUBECONFIG: '/etc/flotilla/host.kubeconfig',
        })
          .withNetworkMode('host')
          .withBindMounts([{ source: kubeconfig, target: '/etc/flotilla/host.kubeconfig', mode: 'ro' }])
          .startReady(port);
        await expectReadyAndLockedDown(container, port);
        await expectCleanStop(container);
      } finally {
        await host?.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    scaled(240_000),
  );

  it.each(SERVICE_NAMES)(
    '%s: refuses to start on bad configuration, naming the variable',
    async (service) => {
      const [name, value] = BAD_SETTING[service];
      const container = await new ServiceContainer(service, { ...serviceEnv(service), [name]: value })
        .withNetwork(network)
        .withWaitStrategy(Wait.forLogMessage('invalid configuration'))
        .withStartupTimeout(60_000)
        .start();
      started.push(container);
      const state = await exitState(container);
      const logs = await logsOf(container);
      expect(state.ExitCode).not.toBe(0);
      expect(logs).toContain(`${service}: invalid configuration:`);
      expect(logs).toMatch(new RegExp(`${name}: .*"${value.replace('/', '\\/')}"`));
      await container.stop();
      started.splice(started.indexOf(container), 1);
    },
    scaled(90_000),
  );
});
