// End to end: NATS restarted without its data. The services notice the lost streams and buckets, re-create them,
// start their watches over and work again without a restart; while NATS is gone they report not ready.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Suite } from '@flotilla/launcher';
import { eventually, freeTcpPort, PrivateNats, REDIS_URL, uniquePrefix } from '@flotilla/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flotilla } from './support/cli.js';
import { removeRedisKeys, ROOT } from './support/suite.js';

const SERVICES = ['gateway', 'status-writer', 'member-agent', 'affinity-scheduler'];
let nats: PrivateNats;
let suite: Suite;
let env: Record<string, string>;
let dir: string;
const logs: string[] = [];
const cli = (...args: string[]) => flotilla(env, args);

const cluster = (name: string) => `apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: { name: ${name} }
spec: { simulation: { allocatable: { cpu: "8", memory: 32Gi, pods: "110" } } }
`;

const workload = `apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: default }
spec:
  replicas: 2
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec: { containers: [{ name: c, image: example/web:1, resources: { requests: { cpu: 100m } } }] }
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: { name: web, namespace: default }
spec:
  resourceSelectors: [{ apiVersion: apps/v1, kind: Deployment, name: web }]
  placement: { clusterAffinity: { clusterNames: [m1] }, replicaScheduling: { replicaSchedulingType: Duplicated } }
`;

async function readiness(): Promise<number[]> {
  return Promise.all(
    suite.processes.map((p) =>
      fetch(`http://127.0.0.1:${p.httpPort}/readyz`).then(
        (r) => r.status,
        () => 0,
      ),
    ),
  );
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flotilla-dataloss-'));
  nats = new PrivateNats(await freeTcpPort());
  await nats.start();
  env = {
    NATS_URL: nats.url,
    REDIS_URL,
    FLOTILLA_PREFIX: uniquePrefix('loss'),
    LOG_LEVEL: 'info',
    LEADER_LEASE_MS: '2000',
    SIM_TICK_MS: '300',
    PROVISION_CHECK_MS: '500',
    RESYNC_MS: '2000',
  };
  suite = new Suite({ root: ROOT, services: SERVICES, env, onOutput: (s, l) => logs.push(`[${s}] ${l}`) });
  await suite.start();
}, 60_000);

afterAll(async () => {
  await suite?.stop();
  await nats?.dispose();
  await removeRedisKeys(env.FLOTILLA_PREFIX!);
  rmSync(dir, { recursive: true, force: true });
});

describe('NATS restarted without its data', () => {
  it('services go unready while it is gone, re-create what it lost and work again without a restart', async () => {
    writeFileSync(join(dir, 'm1.yaml'), cluster('m1'));
    expect((await cli('apply', '-f', join(dir, 'm1.yaml'))).code).toBe(0);
    expect((await cli('wait', '--for=condition=Ready', 'cluster/m1', '--timeout', '20s')).code).toBe(0);
    expect(await readiness()).toEqual(SERVICES.map(() => 200));

    await nats.stop('SIGKILL');
    nats.wipe();
    // Every replica, leader or standby, says it is not ready while NATS is away.
    const during = await eventually(
      async () => {
        const codes = await readiness();
        return codes.every((c) => c === 503) ? codes : undefined;
      },
      10_000,
      'every service unready while NATS is down',
    );
    expect(during).toEqual(SERVICES.map(() => 503));
    await nats.start();
    const backAt = Date.now();

    // A user re-applies; the services notice the empty server by themselves (no restart) and act on it.
    writeFileSync(join(dir, 'all.yaml'), `${cluster('m1')}---\n${workload}`);
    await eventually(
      async () => ((await cli('apply', '-f', join(dir, 'all.yaml'))).code === 0 ? true : undefined),
      10_000,
      'apply',
    );
    await eventually(
      async () => {
        const r = await cli('get', 'rb', 'web-deployment', '-n', 'default', '-o', 'json');
        if (r.code !== 0) return undefined;
        const rb = JSON.parse(r.out) as {
          spec: { clusters?: Array<{ name: string }> };
          status?: { aggregatedStatus?: unknown[] };
        };
        return rb.spec.clusters?.[0]?.name === 'm1' && (rb.status?.aggregatedStatus?.length ?? 0) > 0
          ? true
          : undefined;
      },
      30_000,
      'web scheduled to m1 and reported by the member agent',
    ).catch(async (err: Error) => {
      const rb = await cli('get', 'rb', '-A', '-o', 'json');
      const tpl = await cli('get', 'deploy', '-A', '-o', 'json');
      const clusters = await cli('get', 'clusters', '-o', 'json');
      throw new Error(
        `${err.message}\nbindings: ${rb.out}${rb.err}\nclusters: ${clusters.out}${clusters.err}\ntemplates: ${tpl.out.slice(0, 300)}\n${logs.slice(-60).join('\n')}`,
      );
    });
    const workingAfterMs = Date.now() - backAt;
    expect((await cli('wait', '--for=condition=Ready', 'cluster/m1', '--timeout', '20s')).code).toBe(0);
    await eventually(
      async () => ((await readiness()).every((c) => c === 200) ? true : undefined),
      10_000,
      'all ready again',
    );
    console.log(`NATS back empty -> suite working again (binding scheduled and reported) in ${workingAfterMs} ms`);

    // Each disconnect and reconnect is one structured line, and the re-creation was said once per service at warn.
    const linesOf = (s: string) =>
      logs
        .filter((l) => l.startsWith(`[${s}] {`))
        .map((l) => {
          try {
            return JSON.parse(l.slice(s.length + 3)) as Record<string, unknown>;
          } catch {
            return { unparsed: l };
          }
        });
    for (const s of SERVICES) {
      await eventually(
        () =>
          linesOf(s).some((l) => String(l.msg).startsWith('streams and buckets were missing') && l.level === 'warn')
            ? true
            : undefined,
        10_000,
        `${s} says it re-created the lost streams`,
      ).catch((err: Error) => {
        throw new Error(
          `${err.message}\n${logs.filter((l) => l.startsWith(`[${s}]`) && !l.includes('"level":30')).join('\n')}`,
        );
      });
      expect(linesOf(s).filter((l) => l.msg === 'nats connection lost').length, `${s} lost`).toBeGreaterThanOrEqual(1);
      expect(
        linesOf(s).filter((l) => l.msg === 'nats connection restored').length,
        `${s} restored`,
      ).toBeGreaterThanOrEqual(1);
      expect(
        logs.filter((l) => l.startsWith(`[${s}]`) && !l.startsWith(`[${s}] {`)),
        `${s} raw lines`,
      ).toEqual([]);
      expect(
        linesOf(s).filter((l) => 'unparsed' in l),
        `${s} lines that are not JSON`,
      ).toEqual([]);
    }
    for (const p of suite.processes) expect(p.child.exitCode, p.name).toBeNull();
  }, 120_000);
});
