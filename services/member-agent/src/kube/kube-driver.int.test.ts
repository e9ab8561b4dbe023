import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_RESOURCE_MODELS } from '@flotilla/api';
import { EventTypes, readEvents, type Bus } from '@flotilla/bus';
import { testBus } from '@flotilla/bus/testing';
import { ReadinessGates, systemClock } from '@flotilla/runtime';
import { ObjectStore, type StoredObject } from '@flotilla/store';
import { eventually, metricSum } from '@flotilla/testkit';
import { startKubeCluster, type KubeCluster } from '@flotilla/testkit/kube';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import type { AgentLogger } from '../agent-projections.js';
import type { ClusterStatusReportedData, WorkloadStatusReportedData } from '../report-model.js';
import { clientNodeApi } from './client-node-api.js';
import { KubeDriver } from './kube-driver.js';

/**
 * The kube driver against a real member control plane (kube-apiserver, etcd, kube-controller-manager,
 * kube-scheduler; kwok plays the kubelets), and real NATS. One cluster serves every test: each uses its own
 * namespace and its own bus.
 */

const CLUSTER = 'm1';
const deployMember = join(import.meta.dirname, '..', '..', '..', '..', 'deploy', 'member');

interface Logged {
  level: string;
  obj: Record<string, unknown>;
  msg?: string | undefined;
}
function recordingLogger(): AgentLogger & { lines: Logged[] } {
  const lines: Logged[] = [];
  const log = (level: string) => (obj: object, msg?: string) => {
    lines.push({ level, obj: obj as Record<string, unknown>, msg });
  };
  return { lines, info: log('info'), warn: log('warn'), error: log('error') };
}

async function reports<T>(bus: Bus, kind: string, name: string, type: string): Promise<T[]> {
  const out: T[] = [];
  for await (const d of readEvents(bus, { filter: { kind, name, type } })) out.push(d.event.data as T);
  return out;
}
const lastWorkload = async (bus: Bus, binding: string) =>
  (await reports<WorkloadStatusReportedData>(bus, 'ResourceBinding', binding, EventTypes.WorkloadStatusReported)).at(
    -1,
  );
const clusterReports = (bus: Bus) =>
  reports<ClusterStatusReportedData>(bus, 'Cluster', CLUSTER, EventTypes.ClusterStatusReported);

function deployment(namespace: string, name: string, replicas: number, cpu: string): StoredObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels: { app: name } },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu, memory: '128Mi' } } }] },
      },
    },
  };
}
const configMap = (namespace: string, name: string, data: Record<string, string>): StoredObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace },
  data,
});
function binding(
  template: StoredObject,
  clusters: Array<{ name: string; replicas?: number }>,
  annotations?: Record<string, string>,
): StoredObject {
  const ns = template.metadata.namespace!;
  return {
    apiVersion: 'work.karmada.io/v1alpha2',
    kind: 'ResourceBinding',
    metadata: {
      name: `${template.metadata.name}-${template.kind.toLowerCase()}`,
      namespace: ns,
      ...(annotations ? { annotations } : {}),
    },
    spec: {
      resource: { apiVersion: template.apiVersion, kind: template.kind, namespace: ns, name: template.metadata.name },
      clusters,
    },
  };
}

/** An object as kubectl prints it with `-o json`: the tests read whichever of its fields they check. */
// biome-ignore lint/suspicious/noExplicitAny: the tests read arbitrary fields of the member's objects
type KubectlJson = Record<string, any>;

async function getJson(cluster: KubeCluster, args: string[]): Promise<KubectlJson | undefined> {
  const r = await cluster.kubectl(['get', ...args, '-o', 'json']);
  if (r.code !== 0) {
    if (/NotFound|not found/.test(r.stderr)) return undefined;
    throw new Error(`kubectl get ${args.join(' ')}: ${r.stderr}`);
  }
  return JSON.parse(r.stdout) as KubectlJson;
}

describe('KubeDriver against a real member control plane', () => {
  let cluster: KubeCluster;
  let bus: Bus & { dispose(): Promise<void> };
  let store: ObjectStore;
  const drivers: KubeDriver[] = [];

  const driver = (
    opts: {
      kubeconfig?: string;
      logger?: AgentLogger;
      failureThresholdMs?: number;
      resyncMs?: number;
      registry?: Registry;
      readiness?: ReadinessGates;
    } = {},
  ) => {
    const d = new KubeDriver({
      clusterName: CLUSTER,
      api: clientNodeApi({
        cluster: CLUSTER,
        kubeconfig: opts.kubeconfig ?? cluster.kubeconfigPath,
        probeTimeoutMs: 1000,
      }),
      bus,
      clock: systemClock,
      logger: opts.logger ?? recordingLogger(),
      pollMs: 300,
      failureThresholdMs: opts.failureThresholdMs ?? 1500,
      successThresholdMs: 1500,
      resyncMs: opts.resyncMs ?? 2000,
      metricsPeriodMs: 1000,
      ...(opts.registry ? { registry: opts.registry } : {}),
      ...(opts.readiness ? { readiness: opts.readiness } : {}),
    });
    drivers.push(d);
    return d;
  };

  beforeAll(async () => {
    cluster = await startKubeCluster({ name: 'kube-driver', nodes: 2, cpu: '4', memory: '8Gi', pods: 110 });
  }, 240_000);
  afterAll(async () => {
    await cluster?.stop();
  });
  beforeEach(async () => {
    bus = await testBus('kube-driver');
    store = new ObjectStore(bus);
  });
  afterEach(async () => {
    for (const d of drivers.splice(0)) await d.stop();
    await bus.dispose();
  });

  it('reports the cluster, applies what is assigned (namespace included), reports it, follows changes and removes what is no longer assigned', async () => {
    const ns = 'kd-apply';
    const web = deployment(ns, 'web', 3, '250m');
    const cfg = configMap(ns, 'web-config', { color: 'blue' });
    await store.apply(web);
    await store.apply(cfg);
    await store.apply(
      binding(web, [
        { name: CLUSTER, replicas: 2 },
        { name: 'other', replicas: 1 },
      ]),
    );
    await store.apply(binding(cfg, [{ name: CLUSTER }]));
    const agent = driver();
    await agent.start();

    // Karmada's cluster status: Ready from /readyz, the server's version, the summary from nodes and pods.
    const ready = await eventually(
      async () => (await clusterReports(bus)).find((r) => r.statusPatch.resourceSummary?.allocated.pods === '2'),
      60_000,
      'a Ready report counting the two pods',
    );
    expect(ready.statusPatch.conditions[0]).toMatchObject({ type: 'Ready', status: 'True', reason: 'ClusterReady' });
    expect(ready.statusPatch.kubernetesVersion).toMatch(/^v1\.\d+\.\d+/);
    expect(ready.statusPatch.resourceSummary!.allocatable).toMatchObject({ cpu: '8', pods: '220' });
    expect(ready.statusPatch.resourceSummary!.allocated).toMatchObject({ cpu: '500m', memory: '256Mi', pods: '2' });
    // Both 4-cpu 8Gi nodes, whatever runs on them, are grade 1 of Karmada's default models (8Gi is below 16Gi).
    expect(ready.statusPatch.resourceSummary!.allocatableModelings).toEqual(
      DEFAULT_RESOURCE_MODELS.map(({ grade }) => ({ grade, count: grade === 1 ? 2 : 0 })),
    );

    const member = (await getJson(cluster, ['deployment', 'web', '-n', ns, '--show-managed-fields']))!;
    expect(member.spec.replicas).toBe(2);
    expect(member.metadata.labels).toMatchObject({ app: 'web', 'app.kubernetes.io/managed-by': 'flotilla' });
    expect(member.metadata.annotations['flotilla.io/binding']).toBe(`ResourceBinding/${ns}/web-deployment`);
    expect(member.metadata.managedFields.map((f: { manager: string; operation: string }) => f.manager)).toContain(
      'flotilla',
    );
    expect((await getJson(cluster, ['namespace', ns]))!.metadata.labels['app.kubernetes.io/managed-by']).toBe(
      'flotilla',
    );
    expect((await getJson(cluster, ['configmap', 'web-config', '-n', ns]))!.data).toEqual({ color: 'blue' });

    const healthy = await eventually(
      async () => {
        const r = await lastWorkload(bus, 'web-deployment');
        return r?.health === 'Healthy' ? r : undefined;
      },
      30_000,
      'web Healthy',
    );
    expect(healthy).toMatchObject({
      clusterName: CLUSTER,
      applied: true,
      status: { replicas: 2, readyReplicas: 2, availableReplicas: 2, pendingReplicas: 0 },
    });
    expect(await lastWorkload(bus, 'web-config-configmap')).toEqual({
      clusterName: CLUSTER,
      applied: true,
      health: 'Healthy',
      targetClusters: [CLUSTER],
    });

    // The binding changes: the member follows. The template changes: so does the member object.
    await store.apply(binding(web, [{ name: CLUSTER, replicas: 3 }]));
    await store.apply(configMap(ns, 'web-config', { color: 'green' }));
    await eventually(
      async () => ((await getJson(cluster, ['deployment', 'web', '-n', ns]))?.spec.replicas === 3 ? true : undefined),
      20_000,
      'replicas 3 in the member',
    );
    await eventually(
      async () =>
        (await getJson(cluster, ['configmap', 'web-config', '-n', ns]))?.data.color === 'green' ? true : undefined,
      20_000,
      'the new ConfigMap data',
    );

    // No longer assigned: removed from the member cluster, and reported removed.
    await store.apply(binding(cfg, [{ name: 'other' }]));
    await eventually(
      async () => ((await getJson(cluster, ['configmap', 'web-config', '-n', ns])) === undefined ? true : undefined),
      20_000,
      'the ConfigMap removed',
    );
    expect(await lastWorkload(bus, 'web-config-configmap')).toEqual({
      clusterName: CLUSTER,
      applied: false,
      removed: true,
      targetClusters: ['other'],
    });

    // A new agent (a restart, a new leader) over the same state writes nothing: nothing is applied twice.
    await agent.stop();
    const again = driver();
    await again.start();
    await again.reconcileNow();
    expect(again.writesSent).toBe(0);
  }, 120_000);

  it('never changes an object it did not create: a same-named object is a conflict in the aggregated status', async () => {
    const ns = 'kd-conflict';
    expect((await cluster.kubectl(['create', 'namespace', ns])).code).toBe(0);
    expect(
      (await cluster.kubectl(['create', 'configmap', 'settings', '-n', ns, '--from-literal=owner=team-a'])).code,
    ).toBe(0);
    const cfg = configMap(ns, 'settings', { owner: 'flotilla' });
    await store.apply(cfg);
    await store.apply(binding(cfg, [{ name: CLUSTER }]));
    const agent = driver();
    await agent.start();
    const r = await eventually(() => lastWorkload(bus, 'settings-configmap'), 20_000, 'the conflict report');
    expect(r).toEqual({
      clusterName: CLUSTER,
      applied: false,
      health: 'Unknown',
      targetClusters: [CLUSTER],
      appliedMessage:
        'ConfigMap kd-conflict/settings already exists in the member cluster and was not created by Flotilla: left unchanged',
    });
    const theirs = (await getJson(cluster, ['configmap', 'settings', '-n', ns]))!;
    expect(theirs.data).toEqual({ owner: 'team-a' });
    expect(theirs.metadata.annotations?.['flotilla.io/binding']).toBeUndefined();
    // Unassigning it removes nothing: it was never Flotilla's.
    await store.apply(binding(cfg, []));
    await agent.reconcileNow();
    expect(await getJson(cluster, ['configmap', 'settings', '-n', ns])).toBeDefined();
  }, 60_000);

  it('reports pods the real scheduler cannot place as pending, and their requests as allocating', async () => {
    const ns = 'kd-pending';
    // Two nodes of 4 cpu: one 3-cpu pod fits on each, the other two stay Pending (PodScheduled=False).
    const big = deployment(ns, 'big', 4, '3');
    await store.apply(big);
    await store.apply(binding(big, [{ name: CLUSTER, replicas: 4 }]));
    const agent = driver();
    await agent.start();
    const r = await eventually(
      async () => {
        const w = await lastWorkload(bus, 'big-deployment');
        return w?.status?.pendingReplicas === 2 && w.status.readyReplicas === 2 ? w : undefined;
      },
      60_000,
      'two pods pending',
    );
    expect(r).toMatchObject({ applied: true, health: 'Unhealthy', status: { replicas: 4, availableReplicas: 2 } });
    const summary = await eventually(
      async () =>
        (await clusterReports(bus)).find((c) => c.statusPatch.resourceSummary?.allocating.pods === '2')?.statusPatch
          .resourceSummary,
      20_000,
      'allocating 2 pods',
    );
    expect(summary.allocating).toMatchObject({ cpu: '6', pods: '2' });
    await store.apply(binding(big, []));
    await eventually(
      async () => ((await getJson(cluster, ['deployment', 'big', '-n', ns])) === undefined ? true : undefined),
      20_000,
      'big removed',
    );
  }, 90_000);

  it("a pod's change looks at its workload's binding, not at the cluster's whole share", async () => {
    const ns = 'kd-pods';
    const names = ['p0', 'p1', 'p2', 'p3', 'p4'];
    for (const name of names) {
      const d = deployment(ns, name, 1, '100m');
      await store.apply(d);
      await store.apply(binding(d, [{ name: CLUSTER, replicas: 1 }]));
    }
    const registry = new Registry();
    const agent = driver({ registry });
    await agent.start();
    for (const name of names)
      await eventually(
        async () => ((await lastWorkload(bus, `${name}-deployment`))?.status?.readyReplicas === 1 ? true : undefined),
        60_000,
        `${name} ready`,
      );
    await agent.idle();
    const looks = (pass: string) => metricSum(registry, 'flotilla_kube_member_binding_looks_total', { pass });
    const whole = async () => (await looks('first')) + (await looks('inputs')) + (await looks('member'));
    const wholeBefore = await whole();
    const changedBefore = await looks('changed');
    // The pod goes (its ReplicaSet makes another, which kwok runs): pod events, and the Deployment's status moves.
    const pods = await getJson(cluster, ['pods', '-n', ns, '-l', 'app=p0']);
    const pod = (pods as unknown as { items: Array<{ metadata: { name: string } }> }).items[0]!.metadata.name;
    const deleted = await cluster.kubectl(['delete', 'pod', pod, '-n', ns, '--wait=false']);
    expect(deleted.code, deleted.stderr).toBe(0);
    await eventually(
      async () => {
        const now = await getJson(cluster, ['pods', '-n', ns, '-l', 'app=p0']);
        const items = (now as unknown as { items: Array<{ metadata: { name: string } }> }).items;
        return items.length === 1 && items[0]!.metadata.name !== pod ? true : undefined;
      },
      30_000,
      'p0 running a new pod',
    );
    await eventually(
      async () => ((await lastWorkload(bus, 'p0-deployment'))?.status?.readyReplicas === 1 ? true : undefined),
      30_000,
      'p0 ready again',
    );
    await agent.idle();
    // p0's binding was looked at again; none of the passes looked at the whole share (5 looks each).
    expect(await looks('changed')).toBeGreaterThan(changedBefore);
    expect(await whole()).toBe(wholeBefore);
  }, 90_000);

  it('leaves spec.replicas to a member HPA that owns them, and keeps its min/max as assigned', async () => {
    const ns = 'kd-hpa';
    const app = deployment(ns, 'api', 1, '100m');
    const hpa: StoredObject = {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'api', namespace: ns },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api' },
        minReplicas: 1,
        maxReplicas: 10,
        metrics: [
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
        ],
      },
    };
    const limits = (min: number, max: number) => ({
      'autoscaling.flotilla.io/member-limits': JSON.stringify({ [CLUSTER]: { minReplicas: min, maxReplicas: max } }),
    });
    await store.apply(app);
    await store.apply(hpa);
    await store.apply(binding(app, [{ name: CLUSTER, replicas: 1 }]));
    await store.apply(binding(hpa, [{ name: CLUSTER }], limits(3, 5)));
    const agent = driver();
    await agent.start();
    const memberHpa = await eventually(() => getJson(cluster, ['hpa', 'api', '-n', ns]), 20_000, 'the member HPA');
    expect(memberHpa.spec).toMatchObject({ minReplicas: 3, maxReplicas: 5 });
    // Below its min the real HPA controller scales the workload up; the agent does not take it back.
    await eventually(
      async () => ((await getJson(cluster, ['deployment', 'api', '-n', ns]))?.spec.replicas === 3 ? true : undefined),
      60_000,
      'the HPA scaling api to 3',
    );
    await store.apply(binding(app, [{ name: CLUSTER, replicas: 2 }]));
    await agent.reconcileNow();
    await agent.reconcileNow();
    expect((await getJson(cluster, ['deployment', 'api', '-n', ns]))!.spec.replicas).toBe(3);
    const r = await eventually(
      async () => {
        const w = await lastWorkload(bus, 'api-deployment');
        return w?.status?.hpa?.minReplicas === 3 && w.status.hpa.currentReplicas === 3 ? w : undefined;
      },
      30_000,
      'the member HPA in the report',
    );
    expect(r.status!.hpa).toMatchObject({ minReplicas: 3, maxReplicas: 5, currentReplicas: 3 });
    // The assignment changes: the member HPA follows.
    await store.apply(binding(hpa, [{ name: CLUSTER }], limits(2, 4)));
    await eventually(
      async () => ((await getJson(cluster, ['hpa', 'api', '-n', ns]))?.spec.maxReplicas === 4 ? true : undefined),
      20_000,
      'max 4 in the member',
    );
  }, 120_000);

  it('a member API server that stops answering makes the cluster NotReady after the threshold; back, Ready again, nothing applied twice', async () => {
    const ns = 'kd-outage';
    const web = deployment(ns, 'web', 1, '100m');
    await store.apply(web);
    await store.apply(binding(web, [{ name: CLUSTER, replicas: 1 }]));
    // No periodic resync: NotReady (and Ready again) must come from the probes, not from a later full reconcile.
    const gates = new ReadinessGates();
    const agent = driver({ failureThresholdMs: 1500, resyncMs: 600_000, readiness: gates });
    await agent.start();
    await eventually(async () => ((await lastWorkload(bus, 'web-deployment'))?.applied ? true : undefined), 30_000);
    await eventually(() => (gates.open ? true : undefined), 30_000, 'every member informer synced');
    const writes = agent.writesSent;

    await cluster.stopApiServer();
    // /readyz says which caches are stale once the relisting outlasts the grace.
    const stale = await eventually(
      () => {
        const reasons = gates.reasons();
        return reasons.some((r) => r.startsWith(`kube-informer:${CLUSTER}/pods: cache not synced: `))
          ? reasons
          : undefined;
      },
      30_000,
      'the pods informer named as not synced',
    );
    expect(stale.every((r) => r.startsWith(`kube-informer:${CLUSTER}/`))).toBe(true);
    const down = await eventually(
      async () => (await clusterReports(bus)).find((r) => r.statusPatch.conditions[0]!.status === 'False'),
      20_000,
      'NotReady',
    );
    expect(down.statusPatch).toEqual({
      conditions: [
        { type: 'Ready', status: 'False', reason: 'ClusterNotReachable', message: 'cluster is not reachable' },
      ],
    });
    expect(down.kubeEvent).toMatchObject({ type: 'Warning', reason: 'ClusterNotReady' });
    expect(await lastWorkload(bus, 'web-deployment')).toMatchObject({ applied: false, health: 'Unknown' });

    await cluster.startApiServer();
    await eventually(
      async () => ((await clusterReports(bus)).at(-1)?.statusPatch.conditions[0]?.status === 'True' ? true : undefined),
      30_000,
      'Ready again',
    );
    await eventually(() => (gates.open ? true : undefined), 30_000, 'every member informer synced again');
    await eventually(async () => ((await lastWorkload(bus, 'web-deployment'))?.applied ? true : undefined), 30_000);
    await agent.reconcileNow();
    expect(agent.writesSent).toBe(writes);
  }, 120_000);

  it('lists every page of a kind and hands the informer the JSON as the API server sent it', async () => {
    const ns = 'kd-pages';
    const cms = [1, 2, 3, 4, 5].map((i) => configMap(ns, `page-${i}`, { i: String(i) }));
    const k = await cluster.kubectl(['create', 'namespace', ns]);
    expect(k.code).toBe(0);
    const created = await cluster.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: cms.map((c) => ({ ...c, metadata: { ...c.metadata, labels: { page: 'test' } } })),
      }),
    });
    expect(created.code).toBe(0);
    const api = clientNodeApi({ cluster: CLUSTER, kubeconfig: cluster.kubeconfigPath });
    const seen: Array<{ name: string; created: unknown; data: unknown }> = [];
    const informer = await api.informer('v1', 'ConfigMap', {
      labelSelector: 'page=test',
      pageSize: 2,
      project: (raw) => {
        const v = {
          name: raw.metadata?.name ?? '',
          created: (raw.metadata as { creationTimestamp?: unknown }).creationTimestamp,
          data: raw.data,
        };
        seen.push(v);
        return v;
      },
      onChange: () => undefined,
      onError: (err) => {
        throw err;
      },
    });
    try {
      await informer.start();
      // three pages of two: the continue token is followed to the end
      expect([...informer.cache.keys()].sort()).toEqual([1, 2, 3, 4, 5].map((i) => `${ns}/page-${i}`));
      // as sent: timestamps stay strings (client-node's models would make them Dates)
      expect(typeof seen[0]!.created).toBe('string');
      expect(informer.cache.get(`${ns}/page-3`)!.data).toEqual({ i: '3' });
    } finally {
      await informer.stop();
      api.close();
    }
  });

  it('runs with exactly the deploy/member/ ClusterRole; with one verb removed the error names it and its rule, and the reconcile fails with a Warning event on the binding', async () => {
    const ns = 'kd-rbac';
    const role = readFileSync(join(deployMember, 'clusterrole.yaml'), 'utf8');
    const bind = (user: string, roleName: string) =>
      cluster.kubectl([
        'create',
        'clusterrolebinding',
        `${user}-binding`,
        `--clusterrole=${roleName}`,
        `--user=${user}`,
      ]);
    expect((await cluster.kubectl(['apply', '-f', '-'], { input: role })).code).toBe(0);
    expect((await bind('flotilla-agent', 'flotilla-member-agent')).code).toBe(0);
    // The same role without `patch` on configmaps.
    const withoutPatch = role
      .replace('name: flotilla-member-agent', 'name: flotilla-member-agent-no-cm-patch')
      .replace(
        'resources: ["configmaps", "services"]\n    verbs: ["list", "watch", "create", "patch", "delete"]',
        'resources: ["configmaps", "services"]\n    verbs: ["list", "watch", "create", "delete"]',
      );
    expect(withoutPatch).not.toBe(role);
    expect((await cluster.kubectl(['apply', '-f', '-'], { input: withoutPatch })).code).toBe(0);
    expect((await bind('flotilla-agent-2', 'flotilla-member-agent-no-cm-patch')).code).toBe(0);

    const web = deployment(ns, 'web', 1, '100m');
    const cfg = configMap(ns, 'cfg', { a: '1' });
    for (const o of [web, cfg]) await store.apply(o);
    await store.apply(binding(web, [{ name: CLUSTER, replicas: 1 }]));
    await store.apply(binding(cfg, [{ name: CLUSTER }]));

    const allowedLog = recordingLogger();
    onTestFailed(() =>
      console.log(allowedLog.lines.map((l) => `${l.level} ${l.msg} ${JSON.stringify(l.obj)}`).join('\n')),
    );
    const allowedRegistry = new Registry();
    const allowed = driver({
      kubeconfig: await cluster.userKubeconfig({ name: 'flotilla-agent' }),
      logger: allowedLog,
      registry: allowedRegistry,
    });
    await allowed.start();
    await eventually(
      async () => ((await lastWorkload(bus, 'web-deployment'))?.applied ? true : undefined),
      30_000,
      'web applied with the least-privilege role',
    );
    expect((await getJson(cluster, ['deployment', 'web', '-n', ns]))!.spec.replicas).toBe(1);
    expect(await lastWorkload(bus, 'cfg-configmap')).toMatchObject({ applied: true });
    expect((await clusterReports(bus)).at(-1)!.statusPatch.resourceSummary).toBeDefined();
    expect(await allowedRegistry.metrics()).toMatch(
      /flotilla_reconcile_total\{controller="kube-member",result="success"\} [1-9]/,
    );
    await allowed.stop();

    // A new ConfigMap to apply, as a user whose role lacks `patch` on configmaps.
    const cfg2 = configMap(ns, 'cfg2', { b: '2' });
    await store.apply(cfg2);
    await store.apply(binding(cfg2, [{ name: CLUSTER }]));
    const log = recordingLogger();
    const registry = new Registry();
    const refused = driver({
      kubeconfig: await cluster.userKubeconfig({ name: 'flotilla-agent-2' }),
      logger: log,
      registry,
    });
    await refused.start();
    const r = await eventually(
      async () => {
        const w = await lastWorkload(bus, 'cfg2-configmap');
        return w?.appliedMessage ? w : undefined;
      },
      20_000,
      'the refused apply in the aggregated status',
    );
    expect(r.appliedMessage).toContain(
      `member cluster "${CLUSTER}" forbids patch configmaps "cfg2" in namespace "${ns}" (403 Forbidden): the agent's role needs the rule {apiGroups: [""], resources: ["configmaps"], verbs: ["patch"]}`,
    );
    expect(log.lines.some((l) => String(l.obj.err).includes('verbs: ["patch"]'))).toBe(true);
    // The refused write failed the controller's reconcile: counted on the agent's /metrics under its name, retried
    // with backoff, and a Warning event on the binding (the status writer folds it into the binding's events).
    const failures = await eventually(
      async () => {
        const got = await reports<{ controller: string; kubeEvent: { type: string; reason: string; message: string } }>(
          bus,
          'ResourceBinding',
          'cfg2-configmap',
          'ReconcileFailed',
        );
        return got.length >= 2 ? got : undefined;
      },
      20_000,
      'a Warning event on the binding for each failed try, the second after a backoff',
    );
    expect(failures[0]).toMatchObject({
      controller: 'kube-member',
      kubeEvent: {
        type: 'Warning',
        reason: 'ApplyFailed',
        message: expect.stringContaining('forbids patch configmaps "cfg2"'),
      },
    });
    const metrics = await registry.metrics();
    expect(metrics).toMatch(/flotilla_reconcile_total\{controller="kube-member",result="error"\} [1-9]/);
    // The binding whose writes succeed gets no such event.
    expect(await reports(bus, 'ResourceBinding', 'cfg-configmap', 'ReconcileFailed')).toEqual([]);
  }, 90_000);
});
