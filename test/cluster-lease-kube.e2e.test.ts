// Issue 24, item 1, on real member control planes: a lost zone takes a member's agent and its API server at once.
// kill -9 the kube member-agent of kube1 together with kube1's API server: nothing reports kube1 any more, so only
// its lease running out can tell. The Cluster becomes Ready=Unknown (Karmada's ClusterStatusUnknown) within the grace
// period + 5 s, is tainted unreachable, and the workload runs in the next affinity group's cluster, kube2.
import type { ServiceProcess } from '@flotilla/launcher';
import { eventually } from '@flotilla/testkit';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { flotilla } from './support/cli.js';
import { placed, pushClusters, runningPods, startKubeAgents } from './support/kube-e2e.js';
import { memberClusters, type MemberCluster } from './support/member-clusters.js';
import { startSuite, type RunningSuite } from './support/suite.js';

const GRACE_MS = 10_000;
let s: RunningSuite | undefined;
const kube: MemberCluster[] = [];
let agents: ServiceProcess[] = [];
let killed: string | undefined;

const cli = (...args: string[]) => flotilla(s!.env, args);

beforeAll(async () => {
  s = await startSuite(['gateway', 'status-writer', 'affinity-scheduler'], {
    LEADER_LEASE_MS: '10000',
    CLUSTER_MONITOR_GRACE_MS: String(GRACE_MS),
    CLUSTER_LEASE_RENEW_MS: '1000',
    FAILOVER_GRACE_MS: '1000',
    RESYNC_MS: '2000',
  });
  kube.push(
    ...(await memberClusters([
      { name: 'kube1', cpu: '4' },
      { name: 'kube2', cpu: '4' },
    ])),
  );
  agents = await startKubeAgents(s, kube);
}, 300_000);

// The killed agent exits by SIGKILL; every other service must stop cleanly.
afterAll(async () => {
  try {
    if (s) {
      const codes = await s.suite.stop();
      await s.stop();
      const unclean = Object.entries(codes).filter(([label, c]) => c !== 0 && label !== killed);
      if (unclean.length) throw new Error(`services exited uncleanly: ${JSON.stringify(Object.fromEntries(unclean))}`);
    }
  } finally {
    await Promise.all(kube.map((c) => c.stop()));
  }
}, 60_000);

type Condition = { type: string; status: string; reason?: string; message?: string };
const clusterJson = async (name: string) =>
  JSON.parse((await cli('get', 'cluster', name, '-o', 'json')).out) as {
    spec: { taints?: Array<{ key: string; effect: string }> };
    status?: { conditions?: Condition[] };
  };
const readyOf = async (name: string) => (await clusterJson(name)).status?.conditions?.find((c) => c.type === 'Ready');

describe('a member lost with its agent', () => {
  it('kill -9 of the agent and the API server: Ready=Unknown within the grace period + 5 s, the workload runs in the next group', async () => {
    onTestFailed(() => console.log(`the services' last output:\n${s!.logs.slice(-80).join('\n')}`));
    const [kube1, kube2] = kube as [MemberCluster, MemberCluster];
    expect((await flotilla(s!.env, ['apply', '-f', '-'], pushClusters(['kube1', 'kube2']))).code).toBe(0);
    for (const c of ['kube1', 'kube2'])
      expect((await cli('wait', '--for=condition=Ready', `cluster/${c}`, '--timeout', '60s')).code).toBe(0);
    const applied = await flotilla(
      s!.env,
      ['apply', '-f', '-'],
      `apiVersion: apps/v1
kind: Deployment
metadata: { name: zone, namespace: default, labels: { app: zone } }
spec:
  replicas: 2
  selector: { matchLabels: { app: zone } }
  template:
    metadata: { labels: { app: zone } }
    spec: { containers: [{ name: app, image: nginx, resources: { requests: { cpu: 250m, memory: 64Mi } } }] }
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: { name: zone, namespace: default }
spec:
  resourceSelectors: [{ apiVersion: apps/v1, kind: Deployment, name: zone }]
  placement:
    clusterAffinities:
      - { affinityName: primary, clusterNames: [kube1] }
      - { affinityName: secondary, clusterNames: [kube2] }
    replicaScheduling: { replicaSchedulingType: Duplicated }
`,
    );
    expect(applied.err).toBe('');
    await placed(s!.env, 'zone-deployment', [{ name: 'kube1', replicas: 2 }], 'zone on the first group');
    await runningPods(kube1, 'zone', 2);

    // The zone goes: the agent (kill -9) and the API server at once.
    const agent = agents[0]!;
    killed = `${agent.name}#${agent.replica}`;
    const killedAt = Date.now();
    await Promise.all([s!.suite.kill(agent, 'SIGKILL'), kube1.stopApiServer()]);

    const ready = await eventually(
      async () => {
        const r = await readyOf('kube1');
        return r?.status === 'Unknown' ? r : undefined;
      },
      GRACE_MS + 5000 - (Date.now() - killedAt),
      'kube1 Ready=Unknown within the grace period + 5 s',
    );
    const unknownAfterMs = Date.now() - killedAt;
    // Not before the grace period ran out: the last renewal came a renewal interval (1 s, at a 500 ms probe) before
    // the kill at most, give or take a busy machine's late timers.
    expect(unknownAfterMs).toBeGreaterThanOrEqual(GRACE_MS - 2500);
    expect(ready).toMatchObject({
      reason: 'ClusterStatusUnknown',
      message: 'Cluster status controller stopped posting cluster status.',
    });
    console.log(`kube1's agent and API server killed: Ready=Unknown after ${unknownAfterMs} ms (grace ${GRACE_MS} ms)`);

    await placed(s!.env, 'zone-deployment', [{ name: 'kube2', replicas: 2 }], 'zone failed over to kube2', 60_000);
    await runningPods(kube2, 'zone', 2);
    expect((await clusterJson('kube1')).spec.taints).toContainEqual(
      expect.objectContaining({ key: 'cluster.karmada.io/unreachable', effect: 'NoExecute' }),
    );
    expect((await readyOf('kube2'))?.status).toBe('True');
  }, 240_000);
});
