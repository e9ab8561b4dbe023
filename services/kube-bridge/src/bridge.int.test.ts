import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { publishEvent, readEvents, type Bus } from '@flotilla/bus';
import { testBus } from '@flotilla/bus/testing';
import { GatewayClient } from '@flotilla/client';
import { GatewayHandler, serveNatsApi } from '@flotilla/gateway';
import type { PooledKubeConfig } from '@flotilla/kube-client';
import { ReadinessGates } from '@flotilla/runtime';
import { Informers, KubeEventStore, ObjectStore, type ObjectRef, StatusStore } from '@flotilla/store';
import { eventually, metricSum, REDIS_URL, uniquePrefix } from '@flotilla/testkit';
import { type KubeCluster, startKubeCluster } from '@flotilla/testkit/kube';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { KubeBridge } from './bridge.js';
import { HOST_GATE, HostConnection } from './host-connection.js';
import { HostApi } from './host-api.js';
import { loadKubeConfig } from './kube-config.js';
import { MIRROR_FINALIZER } from './finalizer.js';
import { MIRRORED_KINDS } from './kinds.js';
import { KubeBridgeMetrics } from './metrics.js';
import { SyncRecords } from './sync-records.js';

const CRDS = fileURLToPath(new URL('../../../deploy/crds/', import.meta.url));
const MANIFEST = fileURLToPath(new URL('../../../deploy/services/kube-bridge.yaml', import.meta.url));
/** Who the bridge is in the host cluster: deploy/'s ServiceAccount, whose ClusterRole is all it may do. */
const SERVICE_ACCOUNT = 'system:serviceaccount:flotilla-system:flotilla-kube-bridge';

// A real etcd and kube-apiserver (scripts/kube-env build), real NATS and Redis, the gateway in-process. The bridge
// talks to the API server as deploy/'s ServiceAccount under deploy/'s RBAC: each test proves the ClusterRole too.
let cluster: KubeCluster;
let bridgeKubeconfig: string;
let bus: Bus & { dispose(): Promise<void> };
let stopGateway: () => Promise<void>;
let redis: Redis;
let gateway: GatewayClient;
let prefix: string;
const objects = () => new ObjectStore(bus);
const statuses = () => new StatusStore(bus);

interface Running {
  bridge: KubeBridge;
  registry: Registry;
  gates: ReadinessGates;
  /** Every gate the informers closed, with its reason, in order. */
  informerClosings: string[];
  kubeConfig: PooledKubeConfig;
}
let running: Running | undefined;

async function startBridge(): Promise<Running> {
  const registry = new Registry();
  const gates = new ReadinessGates();
  const informerClosings: string[] = [];
  const readiness = {
    set(gate: string, open: boolean, reason?: string) {
      if (!open) informerClosings.push(`${gate}: ${reason}`);
      gates.set(gate, open, reason);
    },
  };
  const logger = pino({ level: process.env.LOG_LEVEL ?? 'silent' });
  const kubeConfig = loadKubeConfig(bridgeKubeconfig);
  const bridge = new KubeBridge({
    // A new process's informers: a restarted bridge lists Flotilla's side again.
    informers: new Informers({ bus, logger, registry, readiness }),
    bus,
    gateway,
    host: new HostApi(kubeConfig),
    records: new SyncRecords(redis, SyncRecords.hashKeyFor(prefix)),
    eventRecords: new SyncRecords<string>(redis, SyncRecords.eventsHashKeyFor(prefix)),
    connection: new HostConnection({ gates, logger, server: cluster.server }),
    readiness,
    logger,
    metrics: KubeBridgeMetrics.of(registry),
    registry,
    concurrency: 8,
    resyncMs: 60_000,
    backoff: { initialMs: 100, maxMs: 1000 },
    instance: 'bridge-test',
  });
  await bridge.start();
  running = { bridge, registry, gates, informerClosings, kubeConfig };
  return running;
}

async function stopBridge(): Promise<void> {
  await running?.bridge.stop();
  running?.kubeConfig.destroy();
  running = undefined;
}

async function kubectl(args: string[], input?: string): Promise<string> {
  const res = await cluster.kubectl(args, input === undefined ? {} : { input });
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${res.stderr}`);
  return res.stdout;
}

interface HostObject {
  metadata: { name: string; resourceVersion: string; uid: string; finalizers?: string[]; deletionTimestamp?: string };
  spec?: unknown;
  status?: unknown;
}

async function hostGet(resource: string, name: string): Promise<HostObject | undefined> {
  const res = await cluster.kubectl(['get', resource, name, '-n', 'default', '-o', 'json']);
  if (res.code !== 0) {
    if (/NotFound/.test(res.stderr)) return undefined;
    throw new Error(res.stderr);
  }
  return JSON.parse(res.stdout) as HostObject;
}

interface HostEvent {
  type: string;
  reason: string;
  message: string;
  count: number;
  involvedObject: { kind: string; name: string; uid?: string };
}

/** The core/v1 Events in the default namespace matching a field selector. */
async function hostEventsWhere(fieldSelector: string): Promise<HostEvent[]> {
  const out = await kubectl(['get', 'events', '-n', 'default', '--field-selector', fieldSelector, '-o', 'json']);
  return (JSON.parse(out) as { items: HostEvent[] }).items;
}

async function flotillaGet(ref: ObjectRef) {
  return objects().get(ref);
}

const writes = (r: Running, side: string) => metricSum(r.registry, 'flotilla_kube_bridge_writes_total', { side });

const cronYaml = (name: string, targetReplicas: number) => `
apiVersion: autoscaling.karmada.io/v1alpha1
kind: CronFederatedHPA
metadata:
  name: ${name}
  namespace: default
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: web
  rules:
    - name: scale-up
      schedule: "0 8 * * 1-5"
      targetReplicas: ${targetReplicas}
      timeZone: Asia/Shanghai
`;
const cronRef = (name: string): ObjectRef => ({ kind: 'CronFederatedHPA', namespace: 'default', name });

/** A CronFederatedHPA applied with kubectl, mirrored, its finalizer on; then the bridge is stopped. */
async function mirroredThenAway(name: string, targetReplicas: number): Promise<void> {
  await kubectl(['apply', '-f', '-'], cronYaml(name, targetReplicas));
  await eventually(() => flotillaGet(cronRef(name)), 15_000, 'the mirrored CronFederatedHPA');
  await eventually(
    async () => ((await hostGet('cronfhpa', name))?.metadata.finalizers?.length ? true : undefined),
    15_000,
    'the finalizer on the host object',
  );
  await running!.bridge.idle();
  await stopBridge();
}

beforeAll(async () => {
  cluster = await startKubeCluster({ name: 'bridge-host', controlPlaneOnly: true });
  for (const file of readdirSync(CRDS).filter((f) => f.endsWith('.yaml')))
    await kubectl(['apply', '-f', join(CRDS, file)]);
  await kubectl(['wait', '--for=condition=Established', 'crd', '--all', '--timeout=60s']);
  const rbac = parseAllDocuments(readFileSync(MANIFEST, 'utf8'))
    .map((d) => d.toJS() as { kind: string })
    .filter((d) => d.kind === 'ClusterRole' || d.kind === 'ClusterRoleBinding');
  expect(rbac).toHaveLength(2);
  await kubectl(['apply', '-f', '-'], rbac.map((d) => stringify(d)).join('---\n'));
  bridgeKubeconfig = await cluster.userKubeconfig({ name: SERVICE_ACCOUNT });
  bus = await testBus('kb');
  const handler = new GatewayHandler({
    store: new ObjectStore(bus),
    kubeEvents: new KubeEventStore(bus),
    publish: (e) => publishEvent(bus, e),
  });
  const served = serveNatsApi(bus, handler, { error: () => undefined }, new Registry());
  stopGateway = async () => served.stop();
  gateway = new GatewayClient(bus.nc, { apiRoot: bus.names.apiRoot });
  redis = new Redis(REDIS_URL);
  prefix = uniquePrefix('kb');
  await startBridge();
}, 180_000);

afterAll(async () => {
  await stopBridge();
  await redis?.del(SyncRecords.hashKeyFor(prefix), SyncRecords.eventsHashKeyFor(prefix));
  redis?.disconnect();
  await stopGateway?.();
  await bus?.dispose();
  await cluster?.stop();
}, 60_000);

describe('kube-bridge against a real API server', { timeout: 90_000 }, () => {
  it('mirrors a CronFederatedHPA applied with kubectl into Flotilla', async () => {
    await kubectl(['apply', '-f', '-'], cronYaml('web-cron', 10));
    const mirrored = await eventually(() => flotillaGet(cronRef('web-cron')), 15_000, 'the mirrored CronFederatedHPA');
    expect(mirrored.spec).toMatchObject({ rules: [{ name: 'scale-up', targetReplicas: 10 }] });
  });

  it("writes Flotilla's status to the status subresource under the field manager flotilla", async () => {
    const status = { executionHistories: [{ ruleName: 'scale-up', nextExecutionTime: '2026-11-27T00:00:00Z' }] };
    await statuses().fold(cronRef('web-cron'), 1, () => status);
    const host = await eventually(
      async () => {
        const o = await hostGet('cronfhpa', 'web-cron');
        return o?.status ? o : undefined;
      },
      15_000,
      'the status on the host',
    );
    expect(host.status).toEqual(status);
    const managed = await kubectl(['get', 'cronfhpa', 'web-cron', '-o', 'json', '--show-managed-fields']);
    const entries = (
      JSON.parse(managed) as { metadata: { managedFields: Array<{ manager: string; subresource?: string }> } }
    ).metadata.managedFields;
    expect(entries).toContainEqual(expect.objectContaining({ manager: 'flotilla', subresource: 'status' }));
  });

  it('writes ResourceBindings out, and kubectl waits for their Scheduled condition', async () => {
    const ref = { kind: 'ResourceBinding', namespace: 'default', name: 'web-deployment' };
    await objects().create({
      apiVersion: 'work.karmada.io/v1alpha2',
      kind: 'ResourceBinding',
      metadata: { name: ref.name, namespace: 'default' },
      spec: {
        resource: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'default' },
        replicas: 3,
        clusters: [{ name: 'member1', replicas: 3 }],
      },
    });
    await statuses().fold(ref, 1, () => ({
      conditions: [
        {
          type: 'Scheduled',
          status: 'True',
          reason: 'Success',
          message: 'Binding has been scheduled successfully.',
          lastTransitionTime: '2026-11-26T12:00:00Z',
        },
      ],
    }));
    // kubectl wait fails at once on an object that does not exist yet: it waits for a condition, not for the copy.
    await eventually(() => hostGet('rb', 'web-deployment'), 15_000, 'the binding on the host');
    await kubectl(['wait', '--for=condition=Scheduled', 'rb/web-deployment', '-n', 'default', '--timeout=30s']);
    expect(await kubectl(['get', 'rb', '-n', 'default'])).toContain('web-deployment');
    const host = await hostGet('rb', 'web-deployment');
    expect(host?.spec).toMatchObject({ clusters: [{ name: 'member1', replicas: 3 }] });
    // The scheduler's decision, as the status writer records it, is an event kubectl describe shows.
    await new KubeEventStore(bus).record(
      ref,
      {
        type: 'Normal',
        reason: 'ScheduleBindingSucceed',
        message: 'Binding has been scheduled successfully. Result: {member1:3}',
        component: 'affinity-scheduler',
        time: new Date(),
      },
      1,
    );
    const described = await eventually(
      async () => {
        const text = await kubectl(['describe', 'rb', 'web-deployment', '-n', 'default']);
        return text.includes('ScheduleBindingSucceed') ? text : undefined;
      },
      15_000,
      'the event in kubectl describe',
    );
    expect(described).toContain('Binding has been scheduled successfully. Result: {member1:3}');
  });

  it('copies an object created in Flotilla to the host', async () => {
    await gateway.apply({
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }],
        placement: { clusterAffinity: { clusterNames: ['member1'] } },
      },
    });
    const host = await eventually(() => hostGet('pp', 'web'), 15_000, 'the policy on the host');
    expect(host.spec).toMatchObject({ placement: { clusterAffinity: { clusterNames: ['member1'] } } });
  });

  it('mirrors the resource templates a policy selects, and only those', async () => {
    const deployment = (name: string) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: 'default', labels: { app: name } },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: name } },
        template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    });
    await kubectl(['apply', '-f', '-'], JSON.stringify(deployment('web')));
    await kubectl(['apply', '-f', '-'], JSON.stringify(deployment('unselected')));
    const web = await eventually(
      () => flotillaGet({ kind: 'Deployment', namespace: 'default', name: 'web' }),
      15_000,
      'the selected template in Flotilla',
    );
    expect(web.spec).toMatchObject({ replicas: 2 });
    await running!.bridge.idle();
    expect(await flotillaGet({ kind: 'Deployment', namespace: 'default', name: 'unselected' })).toBeUndefined();
  });

  it("a template's replicas set in Flotilla (as its autoscalers set them) reach the host's copy", async () => {
    const ref: ObjectRef = { kind: 'Deployment', namespace: 'default', name: 'web' };
    await running!.bridge.idle();
    await objects().update(ref, (d) => ({ ...d, spec: { ...(d.spec as object), replicas: 5 } }));
    const host = await eventually(
      async () => {
        const o = await hostGet('deployment', 'web');
        return (o?.spec as { replicas?: number } | undefined)?.replicas === 5 ? o : undefined;
      },
      15_000,
      'the new replicas on the host',
    );
    expect(host.spec).toMatchObject({ replicas: 5 });
  });

  it("kubectl delete returns only once Flotilla deleted its copy: the bridge's finalizer holds the host object", async () => {
    const host = await hostGet('cronfhpa', 'web-cron');
    expect(host?.metadata.finalizers).toContain(MIRROR_FINALIZER);
    // kubectl delete waits for the object to be gone, and the API server keeps it while the finalizer is on.
    await kubectl(['delete', 'cronfhpa', 'web-cron', '-n', 'default', '--timeout=60s']);
    expect(await flotillaGet(cronRef('web-cron'))).toBeUndefined();
    expect(await hostGet('cronfhpa', 'web-cron')).toBeUndefined();
  });

  it('an object deleted on the host while the bridge is away stays Terminating until it is back', async () => {
    await mirroredThenAway('away-delete', 3);
    await kubectl(['delete', 'cronfhpa', 'away-delete', '-n', 'default', '--wait=false']);
    const terminating = await hostGet('cronfhpa', 'away-delete');
    expect(terminating?.metadata.deletionTimestamp).toBeDefined();
    expect(await flotillaGet(cronRef('away-delete'))).toBeDefined();
    await startBridge();
    await kubectl(['wait', '--for=delete', 'cronfhpa/away-delete', '-n', 'default', '--timeout=30s']);
    expect(await flotillaGet(cronRef('away-delete'))).toBeUndefined();
  });

  it('deletions in Flotilla remove the host object (its finalizer taken off)', async () => {
    // Written to the host by the bridge: with its finalizer from the start. The template it selects has one too.
    expect((await hostGet('pp', 'web'))?.metadata.finalizers).toContain(MIRROR_FINALIZER);
    expect((await hostGet('deployment', 'web'))?.metadata.finalizers).toContain(MIRROR_FINALIZER);
    await gateway.delete('PropagationPolicy', 'web', 'default');
    await eventually(
      async () => ((await hostGet('pp', 'web')) ? undefined : true),
      15_000,
      'the policy gone from the host',
    );
    // No policy selects the template any more: the bridge lets go of it, so its deletion is not held.
    await eventually(
      async () => ((await hostGet('deployment', 'web'))?.metadata.finalizers?.length ? undefined : true),
      15_000,
      "the template's finalizer taken off",
    );
    await kubectl(['delete', 'deployment', 'web', '-n', 'default', '--timeout=30s']);
    await objects().delete({ kind: 'ResourceBinding', namespace: 'default', name: 'web-deployment' });
    await eventually(
      async () => ((await hostGet('rb', 'web-deployment')) ? undefined : true),
      15_000,
      'the binding gone from the host',
    );
  });

  it("a change on both sides keeps the host's, and says so with both resourceVersions", async () => {
    await kubectl(['apply', '-f', '-'], cronYaml('both', 4));
    await eventually(() => flotillaGet(cronRef('both')), 15_000, 'the mirrored CronFederatedHPA');
    await running!.bridge.idle();
    await stopBridge();
    await kubectl(['apply', '-f', '-'], cronYaml('both', 6));
    await gateway.apply({
      apiVersion: 'autoscaling.karmada.io/v1alpha1',
      kind: 'CronFederatedHPA',
      metadata: { name: 'both', namespace: 'default' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        rules: [{ name: 'scale-up', schedule: '0 8 * * 1-5', targetReplicas: 9, timeZone: 'Asia/Shanghai' }],
      },
    });
    await startBridge();
    await eventually(
      async () => {
        const o = await flotillaGet(cronRef('both'));
        const rules = (o?.spec as { rules?: Array<{ targetReplicas: number }> } | undefined)?.rules;
        return rules?.[0]?.targetReplicas === 6 ? o : undefined;
      },
      15_000,
      "the host's change in Flotilla",
    );
    const events = await eventually(
      async () => {
        const items = await hostEventsWhere('involvedObject.name=both');
        return items.length ? items : undefined;
      },
      15_000,
      'the conflict event',
    );
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'Warning',
        reason: 'MirrorConflict',
        message: expect.stringMatching(
          /changed on both sides since the last sync \(host \d+, Flotilla \d+\): host resourceVersion \d+, Flotilla resourceVersion \d+/,
        ),
      }),
    );
    expect(await kubectl(['describe', 'cronfhpa', 'both', '-n', 'default'])).toContain('MirrorConflict');
  });

  it('a host write that leaves the content as it was (a finalizer, a status) does not make a change in Flotilla a conflict', async () => {
    await mirroredThenAway('quiet', 4);
    // While the bridge is away: another controller's finalizer and a status write on the host (its resourceVersion
    // moves, the mirrored content does not), and a real change in Flotilla.
    const hostBefore = (await hostGet('cronfhpa', 'quiet'))!;
    const finalizers = [...(hostBefore.metadata.finalizers ?? []), 'example.com/keep'];
    const patch = (body: object, ...flags: string[]) =>
      kubectl(['patch', 'cronfhpa', 'quiet', '-n', 'default', ...flags, '--type=merge', '-p', JSON.stringify(body)]);
    await patch({ metadata: { finalizers } });
    await patch({ status: { executionHistories: [{ ruleName: 'scale-up' }] } }, '--subresource=status');
    const hostMoved = (await hostGet('cronfhpa', 'quiet'))!;
    expect(hostMoved.metadata.resourceVersion).not.toBe(hostBefore.metadata.resourceVersion);
    await gateway.apply({
      apiVersion: 'autoscaling.karmada.io/v1alpha1',
      kind: 'CronFederatedHPA',
      metadata: { name: 'quiet', namespace: 'default' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        rules: [{ name: 'scale-up', schedule: '0 8 * * 1-5', targetReplicas: 9, timeZone: 'Asia/Shanghai' }],
      },
    });
    const r = await startBridge();
    const host = await eventually(
      async () => {
        const o = await hostGet('cronfhpa', 'quiet');
        const rules = (o?.spec as { rules?: Array<{ targetReplicas: number }> } | undefined)?.rules;
        return rules?.[0]?.targetReplicas === 9 ? o : undefined;
      },
      15_000,
      "Flotilla's change on the host",
    );
    await r.bridge.idle();
    expect(await metricSum(r.registry, 'flotilla_kube_bridge_conflicts_total')).toBe(0);
    // Both finalizers kept (the bridge writes its own last).
    expect([...(host.metadata.finalizers ?? [])].sort()).toEqual([...finalizers].sort());
    const rules = (await flotillaGet(cronRef('quiet')))?.spec as { rules: Array<{ targetReplicas: number }> };
    expect(rules.rules[0]?.targetReplicas).toBe(9);
    await patch({ metadata: { finalizers: hostBefore.metadata.finalizers } });
  });

  it('a restarted bridge writes nothing again and catches up on what changed while it was away', async () => {
    await running!.bridge.idle();
    await stopBridge();
    const before = {
      host: (await hostGet('cronfhpa', 'both'))!.metadata.resourceVersion as string,
      flotilla: (await flotillaGet(cronRef('both')))!.metadata.resourceVersion,
    };
    await kubectl(['apply', '-f', '-'], cronYaml('while-away', 2));
    const r = await startBridge();
    // Not ready until each host kind's cache was listed, and each of Flotilla's (objects and status per kind, the
    // events), then ready.
    expect(r.informerClosings).toContain('kube-informer:host/CronFederatedHPA: cache not synced: listing');
    expect(r.informerClosings).toContain('informer objects/CronFederatedHPA: cache not synced: listing');
    expect(r.informerClosings).toContain('informer status/CronFederatedHPA: cache not synced: listing');
    expect(r.informerClosings).toContain('informer kubeEvents/*: cache not synced: listing');
    const flotillaGates = new Set(r.informerClosings.filter((c) => c.startsWith('informer ')));
    expect(flotillaGates.size).toBe(2 * MIRRORED_KINDS.length + 1);
    await eventually(() => (r.gates.open ? true : undefined), 15_000, 'the restarted bridge ready');
    await eventually(() => flotillaGet(cronRef('while-away')), 15_000, 'the object created while the bridge was away');
    await r.bridge.idle();
    // The object created while away: into Flotilla, then its finalizer on the host. Nothing already mirrored is
    // written again.
    expect(await writes(r, 'flotilla')).toBe(1);
    expect(await writes(r, 'host')).toBe(1);
    expect(await metricSum(r.registry, 'flotilla_kube_bridge_writes_total', { side: 'host', write: 'finalizer' })).toBe(
      1,
    );
    expect((await hostGet('cronfhpa', 'both'))!.metadata.resourceVersion).toBe(before.host);
    expect((await flotillaGet(cronRef('both')))!.metadata.resourceVersion).toBe(before.flotilla);
  });

  it('the host API server unreachable: unready and says why, a Warning event for each failed write, then catches up', async () => {
    const r = running!;
    await cluster.stopApiServer();
    // Unready once the outage outlasts the grace: the host gate says why, and each host kind's cache says it is stale.
    const reasons = await eventually(
      () => {
        const all = r.gates.reasons().join('\n');
        return all.includes(`${HOST_GATE}:`) && all.includes('kube-informer:host/CronFederatedHPA:') ? all : undefined;
      },
      30_000,
      'the bridge unready, naming the host and its caches',
    );
    expect(reasons).toMatch(new RegExp(`${HOST_GATE}: cannot reach the host API server https://127\\.0\\.0\\.1:\\d+`));
    expect(reasons).toMatch(/kube-informer:host\/CronFederatedHPA: cache not synced: (list|watch) failed: /);
    // Flotilla moves on meanwhile.
    const status = { executionHistories: [{ ruleName: 'scale-up', nextExecutionTime: '2026-11-28T00:00:00Z' }] };
    await statuses().fold(cronRef('while-away'), 1, () => status);
    await gateway.apply({
      apiVersion: 'autoscaling.karmada.io/v1alpha1',
      kind: 'CronFederatedHPA',
      metadata: { name: 'during-outage', namespace: 'default' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        rules: [{ name: 'r', schedule: '0 9 * * *', targetReplicas: 2 }],
      },
    });
    await cluster.startApiServer();
    await eventually(() => (r.gates.open ? true : undefined), 30_000, 'the bridge ready again');
    const host = await eventually(
      async () => {
        const o = await hostGet('cronfhpa', 'while-away');
        return o?.status ? o : undefined;
      },
      30_000,
      'the status written after the outage',
    );
    expect(host.status).toEqual(status);
    await eventually(() => hostGet('cronfhpa', 'during-outage'), 30_000, 'the object created during the outage');
    // Its write to the host failed meanwhile: retried with backoff, and a Warning event on Flotilla's object (which
    // the event controller mirrors to the host's), as every controller records a failed reconcile.
    const failures: Array<{ controller?: string; kubeEvent?: { type: string; reason: string } }> = [];
    const filter = { kind: 'CronFederatedHPA', name: 'during-outage', type: 'ReconcileFailed' };
    for await (const d of readEvents(bus, { filter })) failures.push(d.event.data as (typeof failures)[number]);
    expect(failures.length).toBeGreaterThan(0);
    expect(failures[0]).toMatchObject({
      controller: 'kube-bridge',
      kubeEvent: { type: 'Warning', reason: 'KubeBridgeFailed' },
    });
  });
  it('events reach the host within 2 s while the bridge is up, each once, also for bindings new to the host', async () => {
    // As the scheduler and the status writer do it: a binding created in Flotilla and its event at once, so the event
    // is looked at before the host's watch has shown the bridge its own write of the binding.
    const names = Array.from({ length: 50 }, (_, i) => `burst-${i}`);
    const r = running!;
    await r.bridge.idle();
    const eventWritesBefore = await metricSum(r.registry, 'flotilla_kube_bridge_writes_total', {
      side: 'host',
      write: 'event',
    });
    const kubeEvents = new KubeEventStore(bus);
    await Promise.all(
      names.map(async (name) => {
        const ref = { kind: 'ResourceBinding', namespace: 'default', name };
        await objects().create({
          apiVersion: 'work.karmada.io/v1alpha2',
          kind: 'ResourceBinding',
          metadata: { name, namespace: 'default' },
          spec: {
            resource: { apiVersion: 'apps/v1', kind: 'Deployment', name, namespace: 'default' },
            replicas: 1,
            clusters: [{ name: 'member1', replicas: 1 }],
          },
        });
        await kubeEvents.record(
          ref,
          {
            type: 'Normal',
            reason: 'ScheduleBindingSucceed',
            message: `Binding has been scheduled successfully. Result: {member1:1} (${name})`,
            component: 'affinity-scheduler',
            time: new Date(),
          },
          1,
        );
      }),
    );
    const hostEvents = async () =>
      (await hostEventsWhere('reason=ScheduleBindingSucceed')).filter(
        (e) => e.involvedObject.kind === 'ResourceBinding' && names.includes(e.involvedObject.name),
      );
    const arrived = await eventually(
      async () => {
        const items = await hostEvents();
        return items.length >= names.length ? items : undefined;
      },
      2_000,
      'every ScheduleBindingSucceed event on the host',
    );
    // Each once: one event per binding, attached to the binding the host holds, written once.
    expect(arrived.map((e) => e.involvedObject.name).sort()).toEqual([...names].sort());
    for (const e of arrived) {
      expect(e.count).toBe(1);
      expect(e.involvedObject.uid).toBe((await hostGet('rb', e.involvedObject.name))?.metadata.uid);
    }
    await r.bridge.idle();
    expect(
      (await metricSum(r.registry, 'flotilla_kube_bridge_writes_total', { side: 'host', write: 'event' })) -
        eventWritesBefore,
    ).toBe(names.length);
    expect(await hostEvents()).toHaveLength(names.length);
  });

  it('mirrors nothing from or into a reserved namespace: the host object is told why, and nothing is written there', async () => {
    // A Deployment in kube-system that a ClusterPropagationPolicy selects (a cluster-scoped policy may select any
    // namespace's templates): the bridge refuses it before the gateway would, with the rule on the host object.
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'reserved-web', namespace: 'kube-system', labels: { app: 'reserved-web' } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'reserved-web' } },
        template: {
          metadata: { labels: { app: 'reserved-web' } },
          spec: { containers: [{ name: 'c', image: 'nginx' }] },
        },
      },
    };
    await kubectl(['apply', '-f', '-'], JSON.stringify(deployment));
    await kubectl(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'policy.karmada.io/v1alpha1',
        kind: 'ClusterPropagationPolicy',
        metadata: { name: 'reserved-web' },
        spec: {
          resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'reserved-web' }],
          placement: { clusterAffinity: { clusterNames: ['member1'] } },
        },
      }),
    );
    const events = await eventually(
      async () => {
        const out = await kubectl([
          'get',
          'events',
          '-n',
          'kube-system',
          '-o',
          'json',
          '--field-selector',
          'involvedObject.name=reserved-web,involvedObject.kind=Deployment',
        ]);
        const items = (JSON.parse(out) as { items: HostEvent[] }).items;
        return items.length ? items : undefined;
      },
      15_000,
      'the Warning event on the host Deployment',
    );
    expect(events.map((e) => [e.type, e.reason, e.message])).toEqual([
      [
        'Warning',
        'ReservedNamespace',
        'namespace "kube-system" is reserved (kube-*, flotilla-system): Flotilla does not propagate from or into it; not mirrored',
      ],
    ]);
    // The policy itself is mirrored (it is cluster-scoped); the template is not, and carries no finalizer.
    await eventually(
      () => flotillaGet({ kind: 'ClusterPropagationPolicy', name: 'reserved-web' }),
      15_000,
      'the policy',
    );
    await running!.bridge.idle();
    expect(await flotillaGet({ kind: 'Deployment', namespace: 'kube-system', name: 'reserved-web' })).toBeUndefined();
    const host = JSON.parse(
      await kubectl(['get', 'deployment', 'reserved-web', '-n', 'kube-system', '-o', 'json']),
    ) as HostObject;
    expect(host.metadata.finalizers).toBeUndefined();

    // Objects Flotilla holds in a reserved namespace (stored before the rule: written to the store directly, as the
    // gateway refuses them now) are not written to the host; the same object in default is, which shows the bridge
    // looked at both.
    const cron = (namespace: string) => ({
      apiVersion: 'autoscaling.karmada.io/v1alpha1',
      kind: 'CronFederatedHPA',
      metadata: { name: 'stored-before', namespace },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        rules: [{ name: 'up', schedule: '0 8 * * *', targetReplicas: 3 }],
      },
    });
    await objects().apply(cron('kube-system') as never);
    await objects().apply(cron('default') as never);
    await eventually(() => hostGet('cronfhpa', 'stored-before'), 15_000, 'the CronFederatedHPA of default on the host');
    await running!.bridge.idle();
    const reserved = await cluster.kubectl(['get', 'cronfhpa', 'stored-before', '-n', 'kube-system']);
    expect(reserved.stderr).toMatch(/NotFound/);
  });

  it("Flotilla's copy keeps the host object's uid and creationTimestamp", async () => {
    await kubectl(
      ['apply', '-f', '-'],
      `
apiVersion: apps.karmada.io/v1alpha1
kind: WorkloadRebalancer
metadata:
  name: identity
spec:
  workloads:
    - apiVersion: apps/v1
      kind: Deployment
      name: web
      namespace: default
`,
    );
    const ref: ObjectRef = { kind: 'WorkloadRebalancer', name: 'identity' };
    const mirrored = await eventually(() => flotillaGet(ref), 15_000, 'the mirrored WorkloadRebalancer');
    const host = JSON.parse(await kubectl(['get', 'workloadrebalancer', 'identity', '-o', 'json'])) as {
      metadata: { uid: string; creationTimestamp: string };
    };
    expect(mirrored.metadata.uid).toBe(host.metadata.uid);
    expect(mirrored.metadata.creationTimestamp).toBe(host.metadata.creationTimestamp);
    // A later change on the host keeps them.
    await kubectl(['label', 'workloadrebalancer', 'identity', 'changed=yes']);
    const changed = await eventually(
      async () => {
        const o = await flotillaGet(ref);
        return o?.metadata.labels?.changed === 'yes' ? o : undefined;
      },
      15_000,
      'the label in Flotilla',
    );
    expect(changed.metadata.uid).toBe(host.metadata.uid);
    expect(changed.metadata.creationTimestamp).toBe(host.metadata.creationTimestamp);
  });
});
