// Issue 24, item 6: `scripts/up --kube N` (here its supervisor, scripts/up.mjs, which the script runs after install,
// build, NATS and Redis). Two real member clusters, a host API server with the CRDs and the webhook, the kube-bridge
// and a kube member-agent per member come up; examples/ goes through kubectl; Ctrl-C stops all of it.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually, freeTcpPort, NATS_URL, REDIS_URL, uniquePrefix, scaled } from '@flotilla/testkit';
import { kubeBinDir } from '@flotilla/testkit/kube';
import { afterAll, describe, expect, it, onTestFailed } from 'vitest';
import { ROOT, removeRedisKeys } from './support/suite.js';
import { connectBus, destroyBus } from '@flotilla/bus';

const run = promisify(execFile);
const state = mkdtempSync(join(tmpdir(), 'flotilla-up-kube-'));
const prefix = uniquePrefix('upkube');
let up: ChildProcess | undefined;
let output = '';
let exited: Promise<number | null> = Promise.resolve(null);

afterAll(async () => {
  if (up && up.exitCode === null && up.signalCode === null) {
    up.kill('SIGINT');
    await exited;
  }
  await run('bash', [join(ROOT, 'scripts', 'kube-env'), 'down'], {
    env: { ...process.env, FLOTILLA_KUBE_STATE: state },
  }).catch(() => undefined);
  rmSync(state, { recursive: true, force: true });
  const bus = await connectBus({ url: NATS_URL, prefix });
  await destroyBus(bus);
  await bus.close();
  await removeRedisKeys(prefix);
}, scaled(120_000));

const hostKubectl = (args: string[], input?: string) => {
  const child = run(
    join(kubeBinDir(), 'kubectl'),
    [`--kubeconfig=${join(state, 'flotilla-host', 'admin.kubeconfig')}`, ...args],
    {},
  );
  if (input !== undefined) child.child.stdin?.end(input);
  return child;
};

describe('scripts/up --kube 2', () => {
  it(
    'starts real members, the host with the CRDs and the webhook, applies examples/ with kubectl; Ctrl-C stops everything',
    async () => {
      onTestFailed(() => console.log(`scripts/up's output:\n${output.split('\n').slice(-60).join('\n')}`));
      const gatewayPort = await freeTcpPort();
      up = spawn(process.execPath, [join(ROOT, 'scripts', 'up.mjs')], {
        cwd: ROOT,
        env: {
          ...process.env,
          NATS_URL,
          REDIS_URL,
          FLOTILLA_PREFIX: prefix,
          FLOTILLA_KUBE_STATE: state,
          UP_KUBE_MEMBERS: '2',
          GATEWAY_API_PORT: String(gatewayPort),
          HTTP_BASE_PORT: '0',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const child = up;
      exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
      child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
      child.stderr?.on('data', (c: Buffer) => (output += c.toString()));

      // scripts/up stops by itself when something cannot start: that fails the test at once, not at the time budget.
      await Promise.race([
        eventually(
          () => (output.includes('[up] Flotilla is up on 2 real member cluster(s)') ? true : undefined),
          300_000,
          'scripts/up to say Flotilla is up',
        ),
        exited.then((code) => {
          if (!output.includes('[up] Flotilla is up'))
            throw new Error(`scripts/up exited (code ${code}) before it said Flotilla is up`);
        }),
      ]);
      // Waited for on the host with kubectl (the bridge writes Ready back), in kubectl's words.
      expect(output).toContain('cluster.cluster.karmada.io/member1 condition met');
      expect(output).toContain('cluster.cluster.karmada.io/member2 condition met');
      expect(output).toContain('workloadrebalancer.apps.karmada.io/demo created');
      // The seeds' bindings on the host, as kubectl shows them.
      const rb = await eventually(async () => {
        const r = await hostKubectl(['get', 'rb', 'nginx-deployment', '-n', 'default', '-o', 'json']).catch(
          () => undefined,
        );
        const o = r && (JSON.parse(r.stdout) as { spec?: { clusters?: Array<{ name: string }> } });
        return o?.spec?.clusters?.length ? o : undefined;
      }, 60_000);
      expect(rb.spec?.clusters?.map((c) => c.name)).toEqual(['member1']);
      // The webhook answers kubectl with the gateway's field-path error.
      const refused = await hostKubectl(
        ['apply', '-f', '-'],
        `apiVersion: autoscaling.karmada.io/v1alpha1
kind: CronFederatedHPA
metadata: { name: bad, namespace: default }
spec:
  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: web }
  rules:
    - { name: up, schedule: "61 * * * *", targetReplicas: 1 }
`,
      ).catch((err: { stderr: string }) => err);
      expect((refused as { stderr: string }).stderr).toContain(
        'spec.rules[0].schedule: invalid cron expression "61 * * * *": minute out of range',
      );

      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(output).toContain('member2\tstopped');
      expect(readdirSync(state)).toEqual([]);
      expect(existsSync(join(state, 'up-webhook'))).toBe(false);
    },
    scaled(420_000),
  );
});
