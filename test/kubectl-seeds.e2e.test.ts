// End to end: each seed's worked example (examples/, one file per seed) applied with kubectl to a host API server
// (a real kube-apiserver with deploy/crds/), mirrored into the running suite by the kube-bridge, taking effect on
// simulated member clusters, and its outcome read back with kubectl. The members are the sim driver's clusters.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '@flotilla/testkit';
import { type KubeCluster, startKubeCluster } from '@flotilla/testkit/kube';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flotilla } from './support/cli.js';
import { ROOT, type RunningSuite, startSuite } from './support/suite.js';

let cluster: KubeCluster;
let s: RunningSuite;
const examples = join(ROOT, 'examples');

async function kubectl(args: string[], input?: string): Promise<string> {
  const res = await cluster.kubectl(args, input === undefined ? {} : { input });
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${res.stderr}`);
  return res.stdout;
}

interface HostObject {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}
async function hostGet(resource: string, name: string, namespace = 'default'): Promise<HostObject | undefined> {
  const res = await cluster.kubectl(['get', resource, name, '-n', namespace, '-o', 'json']);
  return res.code === 0 ? (JSON.parse(res.stdout) as HostObject) : undefined;
}
const clusterNames = (o: HostObject | undefined) =>
  ((o?.spec?.clusters as Array<{ name: string }> | undefined) ?? []).map((c) => c.name).sort();

beforeAll(async () => {
  cluster = await startKubeCluster({ name: 'seeds-host', controlPlaneOnly: true });
  const crds = join(ROOT, 'deploy', 'crds');
  for (const file of readdirSync(crds).filter((f) => f.endsWith('.yaml')))
    await kubectl(['apply', '-f', join(crds, file)]);
  await kubectl(['wait', '--for=condition=Established', 'crd', '--all', '--timeout=60s']);
  s = await startSuite(
    [
      'gateway',
      'status-writer',
      'member-agent',
      'affinity-scheduler',
      'cron-scheduler',
      'hpa-assigner',
      'rebalancer',
      'kube-bridge',
    ],
    { SIM_TICK_MS: '200', RESYNC_MS: '2000', KUBE_BRIDGE_KUBECONFIG: cluster.kubeconfigPath },
  );
}, 180_000);

afterAll(async () => {
  await s?.stop();
  await cluster?.stop();
}, 60_000);

describe('the seeds through kubectl', { timeout: 120_000 }, () => {
  it('joins the simulated member clusters applied with kubectl, and kubectl waits for them to be Ready', async () => {
    await kubectl(['apply', '-f', join(examples, '00-clusters.yaml')]);
    for (const name of ['member1', 'member2', 'member3'])
      await kubectl(['wait', '--for=condition=Ready', `cluster/${name}`, '--timeout=60s']);
    for (const file of [
      '10-nginx-ordered-groups.yaml',
      '20-web-divided.yaml',
      '30-web-cron.yaml',
      '40-shop-federated-hpa.yaml',
      '50-php-apache-effective-hpa.yaml',
    ])
      await kubectl(['apply', '-f', join(examples, file)]);
  });

  it('seed 003: the ordered groups place nginx in dc-beijing, and fail over to dc-hongkong', async () => {
    await kubectl(['wait', '--for=condition=Scheduled', 'rb/nginx-deployment', '-n', 'default', '--timeout=60s']);
    const rb = await hostGet('rb', 'nginx-deployment');
    expect(clusterNames(rb)).toEqual(['member1']);
    expect(rb?.status?.schedulerObservingAffinityName).toBe('dc-beijing');
    expect((await flotilla(s.env, ['cluster', 'fail', 'member1'])).code).toBe(0);
    await eventually(
      async () => {
        const moved = await hostGet('rb', 'nginx-deployment');
        return clusterNames(moved).join() === 'member2' ? moved : undefined;
      },
      60_000,
      'nginx failed over to member2 on the host',
    );
    expect((await flotilla(s.env, ['cluster', 'recover', 'member1'])).code).toBe(0);
    await kubectl(['wait', '--for=condition=Ready', 'cluster/member1', '--timeout=60s']);
  });

  it('seed 000: the CronFederatedHPA has its rules scheduled, shown on the host', async () => {
    const cron = await eventually(
      async () => {
        const o = await hostGet('cronfhpa', 'web-cron');
        return (o?.status?.executionHistories as unknown[] | undefined)?.length ? o : undefined;
      },
      60_000,
      'the CronFederatedHPA status on the host',
    );
    expect(cron.status?.executionHistories).toEqual(
      expect.arrayContaining([expect.objectContaining({ ruleName: 'scale-up' })]),
    );
  });

  it('seed 001: the FederatedHPA assigns min/max across the members by static weight', async () => {
    await kubectl(['wait', '--for=condition=Scheduled', 'rb/shop-deployment', '-n', 'default', '--timeout=60s']);
    const fhpa = await eventually(
      async () => {
        const o = await hostGet('fhpa', 'shop');
        return o?.status ? o : undefined;
      },
      60_000,
      'the FederatedHPA status on the host',
    );
    expect(fhpa.status).toBeDefined();
  });

  it("seed 002: the EffectiveHPA reports on the host (Crane's php-apache)", async () => {
    const ehpa = await eventually(
      async () => {
        const o = await hostGet('ehpa', 'php-apache');
        return o?.status ? o : undefined;
      },
      60_000,
      'the EffectiveHPA status on the host',
    );
    expect(ehpa.status).toBeDefined();
  });

  it('seed 004: the WorkloadRebalancer reschedules nginx and web and records each result', async () => {
    await kubectl(['wait', '--for=condition=Scheduled', 'rb/web-deployment', '-n', 'default', '--timeout=60s']);
    await kubectl(['apply', '-f', join(examples, '60-rebalance.yaml')]);
    const rebalancer = await eventually(
      async () => {
        const o = await hostGet('workloadrebalancer', 'demo', '');
        const observed = o?.status?.observedWorkloads as Array<{ result?: string }> | undefined;
        return observed?.length === 2 && observed.every((w) => w.result) ? o : undefined;
      },
      60_000,
      'the WorkloadRebalancer results on the host',
    );
    expect(rebalancer.status?.observedWorkloads).toEqual([
      expect.objectContaining({ workload: expect.objectContaining({ name: 'nginx' }), result: 'Successful' }),
      expect.objectContaining({ workload: expect.objectContaining({ name: 'web' }), result: 'Successful' }),
    ]);
  });
});
