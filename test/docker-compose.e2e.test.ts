// `docker compose up` of the repository's docker-compose.yml, as the README tells users to run it: NATS, Redis and
// every service from the images (built here by `docker build`, the base images by scripts/docker-env), examples/
// applied by the compose job, the CLI on the host reading clusters and bindings through the published NATS port, and
// `docker compose down -v` leaving no container, volume or network behind. The containers talk on the project's own
// network; the host reaches them on its loopback only.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import { SERVICE_CATALOGUE, SERVICE_NAMES } from '@flotilla/catalogue';
import { eventually, freeTcpPort } from '@flotilla/testkit';
import { flotilla } from './support/cli.js';
import { buildFlotillaImage, docker, requireDockerEngine } from './support/docker.js';

/** The services `docker compose up` starts by default (kube-bridge needs a host API server: its own profile). */
const COMPOSED = SERVICE_NAMES.filter((s) => !SERVICE_CATALOGUE[s].optional);
const READY_TIMEOUT_MS = 240_000;

interface ComposeContainer {
  Service: string;
  State: string;
  Health: string;
  ExitCode: number;
}

const project = `flotilla-e2e-${randomBytes(3).toString('hex')}`;
let composeEnv: Record<string, string> = {};
let cliEnv: Record<string, string> = {};
let up = false;

async function compose(args: string[], timeoutMs = 180_000) {
  return docker(['compose', '--project-name', project, ...args], { env: composeEnv, timeoutMs });
}

async function containers(): Promise<ComposeContainer[]> {
  const { stdout } = await compose(['ps', '--all', '--format', 'json']);
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as ComposeContainer);
}

/** What the engine still holds of the project: containers, volumes and networks carrying its compose label. */
async function leftovers(): Promise<string[]> {
  const label = `label=com.docker.compose.project=${project}`;
  const lists = await Promise.all([
    docker(['ps', '--all', '--quiet', '--filter', label]),
    docker(['volume', 'ls', '--quiet', '--filter', label]),
    docker(['network', 'ls', '--quiet', '--filter', label]),
  ]);
  return lists.flatMap(({ stdout }) => stdout.split('\n').filter((l) => l.trim() !== ''));
}

beforeAll(async () => {
  await requireDockerEngine();
  const image = await buildFlotillaImage();
  console.log(`docker build: ${image.seconds.toFixed(1)} s, image ${(image.sizeBytes / 1e6).toFixed(0)} MB`);
  const [natsPort, gatewayPort] = [await freeTcpPort(), await freeTcpPort()];
  composeEnv = { FLOTILLA_NATS_PORT: String(natsPort), FLOTILLA_GATEWAY_PORT: String(gatewayPort) };
  cliEnv = { NATS_URL: `nats://127.0.0.1:${natsPort}`, FLOTILLA_PREFIX: 'flotilla' };
}, 1_260_000);

afterAll(async () => {
  // Also after a failure: nothing of the project may outlive the test.
  if (up) await compose(['down', '--volumes', '--remove-orphans', '--timeout', '10']);
}, 120_000);

describe('docker compose up: the whole suite from the images', () => {
  // What each container said, when a step fails: a service that never turned healthy says why in its last lines.
  beforeEach(() =>
    onTestFailed(async () => {
      if (!up) return;
      const { stdout } = await compose(['logs', '--no-color', '--tail', '15']).catch((err: unknown) => ({
        stdout: String(err),
      }));
      console.log(`the containers' last lines:\n${stdout}`);
    }),
  );

  it(
    'brings up NATS, Redis and every service, each Ready, and applies examples/',
    async () => {
      const started = performance.now();
      up = true;
      await compose(['up', '--detach']);
      const ready = await eventually(
        async () => {
          const all = await containers();
          const byService = new Map(all.map((c) => [c.Service, c]));
          const servicesReady = COMPOSED.every((s) => byService.get(s)?.Health === 'healthy');
          const serversUp = byService.get('nats')?.State === 'running' && byService.get('redis')?.Health === 'healthy';
          return servicesReady && serversUp ? all : undefined;
        },
        READY_TIMEOUT_MS,
        'every service healthy (its /readyz answering 200)',
      );
      console.log(
        `docker compose up -> all ${COMPOSED.length} services Ready in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
      expect(ready.map((c) => c.Service).sort()).toEqual(['examples', 'nats', 'redis', ...COMPOSED].sort());
      // The examples job exits 0 once it has applied the folder.
      const examples = await eventually(
        async () => (await containers()).find((c) => c.Service === 'examples' && c.State === 'exited'),
        READY_TIMEOUT_MS,
        'the examples job to finish',
      );
      console.log(`docker compose up -> examples/ applied in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      const { stdout } = await compose(['logs', '--no-color', 'examples']);
      expect(examples.ExitCode, stdout).toBe(0);
      expect(stdout).toContain('cluster/member1 created');
      expect(stdout).toContain('workloadrebalancer/demo created');
    },
    READY_TIMEOUT_MS * 2,
  );

  it('the CLI on the host sees the clusters and the bindings', async () => {
    const clusters = await eventually(
      async () => {
        const r = await flotilla(cliEnv, ['get', 'clusters']);
        const ready = r.out.split('\n').filter((l) => /^member[123]\s.*\sTrue\s/.test(l));
        return ready.length === 3 ? r.out : undefined;
      },
      60_000,
      'member1, member2 and member3 Ready',
    );
    expect(clusters).toMatch(/^NAME\s+VERSION\s+MODE\s+READY\s+AGE/);
    const bindings = await eventually(
      async () => {
        const r = await flotilla(cliEnv, ['get', 'rb']);
        return /^nginx-deployment\s+True\s+member1:2\s/m.test(r.out) && /^web-deployment\s+True\s/m.test(r.out)
          ? r.out
          : undefined;
      },
      60_000,
      'nginx and web scheduled',
    );
    // Seed 003's example: nginx lands on the first affinity group's cluster.
    expect(bindings).toMatch(/^nginx-deployment\s+True\s+member1:2\s/m);
  }, 150_000);

  it('docker compose down -v leaves nothing behind', async () => {
    expect((await leftovers()).length).toBeGreaterThan(0);
    await compose(['down', '--volumes', '--remove-orphans', '--timeout', '10']);
    up = false;
    expect(await leftovers()).toEqual([]);
  }, 120_000);
});
