// End to end with real member control planes: the running suite, two kube clusters (each a real kube-apiserver,
// etcd, controller-manager and scheduler, kwok playing the kubelets) with a kube member-agent each, and one simulated
// cluster, side by side. Seed 003: ordered clusterAffinities place a Deployment on the first group's kube cluster;
// its API server stops -> the workload moves to the next group after the grace; started again -> a
// WorkloadRebalancer brings it back, and `flotilla.io/fail-back-after` does it by itself.
import { afterWholeSecond, eventually } from '@flotilla/testkit';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { flotilla } from './support/cli.js';
import {
  clustersOf as bindingClusters,
  deploymentIn,
  placed as placedIn,
  pushClusters,
  runningPods,
  startKubeAgents,
  stopSuiteAndClusters,
  type Targets,
} from './support/kube-e2e.js';
import { memberClusters, type MemberCluster as KubeCluster } from './support/member-clusters.js';
import { startSuite, type RunningSuite } from './support/suite.js';

let s: RunningSuite | undefined;
const kube: KubeCluster[] = [];

const cli = (...args: string[]) => flotilla(s!.env, args);
const apply = async (yaml: string) => {
  const r = await flotilla(s!.env, ['apply', '-f', '-'], yaml);
  expect(r.err).toBe('');
};
const clustersOf = (binding: string) => bindingClusters(s!.env, binding);
const placed = (binding: string, expected: Targets, what: string, timeoutMs = 30_000) =>
  placedIn(s!.env, binding, expected, what, timeoutMs);

const workload = (name: string, failBack?: string) => `
apiVersion: apps/v1
kind: Deployment
metadata: { name: ${name}, namespace: default, labels: { app: ${name} } }
spec:
  replicas: 2
  selector: { matchLabels: { app: ${name} } }
  template:
    metadata: { labels: { app: ${name} } }
    spec: { containers: [{ name: app, image: nginx, resources: { requests: { cpu: 250m, memory: 64Mi } } }] }
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: ${name}
  namespace: default
${failBack ? `  annotations: { flotilla.io/fail-back-after: ${failBack} }\n` : ''}spec:
  resourceSelectors: [{ apiVersion: apps/v1, kind: Deployment, name: ${name} }]
  placement:
    clusterAffinities:
      - { affinityName: primary, clusterNames: [kube1] }
      - { affinityName: secondary, clusterNames: [kube2] }
      - { affinityName: simulated, clusterNames: [sim1] }
    replicaScheduling: { replicaSchedulingType: Duplicated }
`;

beforeAll(async () => {
  s = await startSuite(['gateway', 'status-writer', 'member-agent', 'affinity-scheduler', 'rebalancer'], {
    // Leadership is not what this file tests: a longer lease keeps it steady on a loaded machine (with 2 s the kube
    // member-agents lost it every few seconds at load average 28, and the Divided case timed out).
    LEADER_LEASE_MS: '10000',
    FAILOVER_GRACE_MS: '1000',
    SIM_TICK_MS: '200',
    RESYNC_MS: '2000',
  });
  // Two control planes at once is what two cores allow; kube2's node has twice kube1's cpu.
  kube.push(
    ...(await memberClusters([
      { name: 'kube1', cpu: '4' },
      { name: 'kube2', cpu: '8' },
    ])),
  );
  await startKubeAgents(s, kube);
}, 300_000);

afterAll(() => stopSuiteAndClusters(s, kube), 60_000);

describe('kube member clusters in the running suite', () => {
  it('seed 003: placed on the first group, moved to the next when its API server stops, brought back by a WorkloadRebalancer and by fail-back-after', async () => {
    onTestFailed(() => console.log(`the services' last output:\n${s!.logs.slice(-60).join('\n')}`));
    const [kube1, kube2] = kube as [KubeCluster, KubeCluster];
    await apply(pushClusters(['kube1', 'kube2']));
    expect((await cli('cluster', 'add', 'sim1', '--sim', '--cpu', '8')).code).toBe(0);
    for (const c of ['kube1', 'kube2', 'sim1'])
      expect((await cli('wait', '--for=condition=Ready', `cluster/${c}`, '--timeout', '60s')).code).toBe(0);
    const kube1Status = JSON.parse((await cli('get', 'cluster', 'kube1', '-o', 'json')).out) as {
      status: { kubernetesVersion: string; resourceSummary: { allocatable: Record<string, string> } };
    };
    expect(kube1Status.status.kubernetesVersion).toMatch(/^v1\.\d+\.\d+/);
    // The testkit's kwok node has exactly what it was given (kind's node has the machine's).
    if (!process.env.FLOTILLA_KIND_KUBECONFIGS)
      expect(kube1Status.status.resourceSummary.allocatable).toMatchObject({ cpu: '4', memory: '16Gi', pods: '110' });

    await apply(workload('shop'));
    await apply(workload('cart', '3s'));
    for (const name of ['shop', 'cart']) {
      await placed(`${name}-deployment`, [{ name: 'kube1', replicas: 2 }], `${name} on the first group`);
      await runningPods(kube1, name, 2);
      // Karmada's FullyApplied: every target cluster reported the workload applied.
      const applied = await cli('wait', '--for=condition=FullyApplied', `rb/${name}-deployment`, '--timeout', '30s');
      expect(applied.code).toBe(0);
    }

    await kube1.stopApiServer();
    for (const name of ['shop', 'cart']) {
      await placed(`${name}-deployment`, [{ name: 'kube2', replicas: 2 }], `${name} failed over`, 60_000);
      await runningPods(kube2, name, 2);
    }

    await kube1.startApiServer();
    expect((await cli('wait', '--for=condition=Ready', 'cluster/kube1', '--timeout', '60s')).code).toBe(0);
    // fail-back-after: cart returns by itself once kube1 has been able to hold it for 3 s.
    await placed('cart-deployment', [{ name: 'kube1', replicas: 2 }], 'cart failed back', 60_000);
    await runningPods(kube1, 'cart', 2);
    await eventually(
      async () => ((await deploymentIn(kube2, 'cart')) ? undefined : true),
      30_000,
      'cart gone from kube2',
    );
    // shop stays where it is until a WorkloadRebalancer asks for a fresh schedule.
    expect(await clustersOf('shop-deployment')).toEqual([{ name: 'kube2', replicas: 2 }]);
    // While it is not assigned there, kube1 no longer runs it: the agent removed it once kube1 answered again.
    await eventually(
      async () => ((await deploymentIn(kube1, 'shop')) ? undefined : true),
      30_000,
      'shop gone from kube1',
    );
    // Fresh needs a trigger strictly after lastScheduledTime (whole seconds, and the scheduling is done by now)
    await afterWholeSecond(Date.now());
    expect((await cli('rebalance', 'deploy/shop', '--wait', '--timeout', '60s')).code).toBe(0);
    await placed('shop-deployment', [{ name: 'kube1', replicas: 2 }], 'shop rebalanced back');
    await runningPods(kube1, 'shop', 2);
  }, 360_000);

  it('divides a workload over both kube clusters by dynamic weight from their real capacity', async () => {
    onTestFailed(() => console.log(`the services' last output:\n${s!.logs.slice(-60).join('\n')}`));
    const [kube1, kube2] = kube as [KubeCluster, KubeCluster];
    await apply(`
apiVersion: apps/v1
kind: Deployment
metadata: { name: split, namespace: default, labels: { app: split } }
spec:
  replicas: 6
  selector: { matchLabels: { app: split } }
  template:
    metadata: { labels: { app: split } }
    spec: { containers: [{ name: app, image: nginx, resources: { requests: { cpu: 500m, memory: 64Mi } } }] }
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: { name: split, namespace: default }
spec:
  resourceSelectors: [{ apiVersion: apps/v1, kind: Deployment, name: split }]
  placement:
    clusterAffinity: { clusterNames: [kube1, kube2] }
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Weighted
      weightPreference: { dynamicWeight: AvailableReplicas }
`);
    // kube2's node has twice kube1's cpu, and kube1 already runs shop and cart: kube2 gets the larger share.
    const split = await eventually(
      async () => {
        const c = await clustersOf('split-deployment').catch(() => []);
        return c.reduce((n, t) => n + (t.replicas ?? 0), 0) === 6 ? c : undefined;
      },
      30_000,
      'split divided',
    );
    const on = (name: string) => split.find((t) => t.name === name)?.replicas ?? 0;
    expect(on('kube1')).toBeGreaterThan(0);
    expect(on('kube2')).toBeGreaterThan(on('kube1'));
    await runningPods(kube1, 'split', on('kube1'));
    await runningPods(kube2, 'split', on('kube2'));
  }, 120_000);
});
