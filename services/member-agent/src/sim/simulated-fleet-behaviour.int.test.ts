import { DEFAULT_RESOURCE_MODELS, FederatedHpaAnnotations, ReservedNamespaces } from '@flotilla/api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Bus, type CloudEvent, createJson, EventTypes, getJson } from '@flotilla/bus';
import { testBus } from '@flotilla/bus/testing';
import { systemClock } from '@flotilla/runtime';
import {
  Informers,
  type MemberUsage,
  memberUsageKey,
  ObjectStore,
  objectKey,
  type StoredObject,
} from '@flotilla/store';
import { eventually } from '@flotilla/testkit';
import type { AgentLogger } from '../agent-projections.js';
import type {
  ClusterStatusReportedData,
  WorkloadStatusesReportedData,
  WorkloadStatusReportedData,
} from '../report-model.js';
import { SimulatedFleet, type SimulatedFleetOptions } from './simulated-fleet.js';

// What the tick loop's tests (cluster-sim.test.ts, agent.int.test.ts) held, held of the path that replaces it: a
// SimulatedFleet (a SimulatedMember behind a KubeDriver per simulated Cluster) on real NATS. The stored objects are
// what the gateway would store: a binding's template exists, and its pods' requests are the template's.

const quiet: AgentLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };
/** Probes and resyncs every TICK_MS: `cluster fail` and a changed simulation are seen within one. */
const TICK_MS = 100;
const WAIT_MS = 10_000;

const sim = (extra: Record<string, unknown> = {}) => ({
  allocatable: { cpu: '4', memory: '8Gi', pods: '110' },
  ...extra,
});

function cluster(name: string, simulation?: Record<string, unknown>, spec: Record<string, unknown> = {}): StoredObject {
  return {
    apiVersion: 'cluster.karmada.io/v1alpha1',
    kind: 'Cluster',
    metadata: { name },
    spec: { syncMode: 'Push', ...spec, ...(simulation ? { simulation } : {}) },
  };
}

/** Deployment `name` in `namespace`: `replicas` pods requesting `cpu` (and `memory`), labelled app=<name>. */
function deployment(
  name: string,
  o: { replicas?: number; cpu?: string; memory?: string; namespace?: string } = {},
): StoredObject {
  const labels = { app: name };
  const requests = { ...(o.cpu ? { cpu: o.cpu } : {}), ...(o.memory ? { memory: o.memory } : {}) };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: o.namespace ?? 'default' },
    spec: {
      replicas: o.replicas ?? 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: 'app', image: 'app', resources: { requests } }] },
      },
    },
  };
}

function hpa(name: string, target: string, min: number, max: number, utilization: number): StoredObject {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name, namespace: 'default' },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target },
      minReplicas: min,
      maxReplicas: max,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: utilization } },
        },
      ],
    },
  };
}

/** The binding of `template` (named `<name>-<kind>` as the detector names it), placed on `clusters`. */
function binding(
  template: StoredObject,
  clusters: Array<{ name: string; replicas?: number }>,
  o: { replicas?: number; annotations?: Record<string, string> } = {},
): StoredObject {
  const clusterScoped = template.metadata.namespace === undefined;
  return {
    apiVersion: 'work.karmada.io/v1alpha2',
    kind: clusterScoped ? 'ClusterResourceBinding' : 'ResourceBinding',
    metadata: {
      name: `${template.metadata.name}-${template.kind.toLowerCase()}`,
      ...(clusterScoped ? {} : { namespace: template.metadata.namespace }),
      ...(o.annotations ? { annotations: o.annotations } : {}),
    },
    spec: {
      resource: {
        apiVersion: template.apiVersion,
        kind: template.kind,
        ...(clusterScoped ? {} : { namespace: template.metadata.namespace }),
        name: template.metadata.name,
        uid: `uid-${template.metadata.name}`,
      },
      ...(o.replicas !== undefined ? { replicas: o.replicas } : {}),
      clusters,
    },
  };
}

/** A workload event's reports, one per cluster: the event's own, or each of a report of several clusters. */
function clusterReports(e: CloudEvent): WorkloadStatusReportedData[] {
  const d = e.data as WorkloadStatusReportedData & Partial<WorkloadStatusesReportedData>;
  if (!Array.isArray(d.reports)) return [d];
  return d.reports.map((one) => {
    const kubeEvent = d.kubeEvents?.find((k) => k.message.includes(`in cluster ${one.clusterName}:`));
    return { ...one, ...(d.targetClusters && { targetClusters: d.targetClusters }), ...(kubeEvent && { kubeEvent }) };
  });
}

/** Whether `e` is of the type `name` (EventTypes names it; CloudEvents' `type` is `io.flotilla.<name>`). */
const is = (e: CloudEvent, name: string) => e.type === `io.flotilla.${name}`;

describe('SimulatedFleet: what the simulated agent did, through the kube driver', () => {
  let bus: Bus & { dispose(): Promise<void> };
  let store: ObjectStore;
  let fleets: SimulatedFleet[];
  /** Every event published, in order. */
  let events: CloudEvent[];
  let unsubscribe: () => void;

  beforeEach(async () => {
    bus = await testBus('sim-fleet-behaviour');
    store = new ObjectStore(bus);
    fleets = [];
    events = [];
    const sub = bus.nc.subscribe(`${bus.names.eventsRoot}.>`, {
      callback: (err, msg) => {
        if (!err) events.push(msg.json<CloudEvent>());
      },
    });
    unsubscribe = () => sub.unsubscribe();
  });
  afterEach(async () => {
    unsubscribe();
    await Promise.all(fleets.map((f) => f.stop()));
    await bus.dispose();
  });

  async function startFleet(o: Partial<SimulatedFleetOptions> = {}): Promise<SimulatedFleet> {
    const fleet = new SimulatedFleet({
      bus,
      clock: systemClock,
      logger: quiet,
      informers: new Informers({ bus }),
      tickMs: TICK_MS,
      ...o,
    });
    fleets.push(fleet);
    await fleet.start();
    return fleet;
  }

  async function stopFleet(fleet: SimulatedFleet): Promise<void> {
    await fleet.stop();
    fleets = fleets.filter((f) => f !== fleet);
  }

  const clusterEvents = (name: string) =>
    events.filter((e) => is(e, EventTypes.ClusterStatusReported) && e.subject === `Cluster//${name}`);
  const clusterData = (name: string) => clusterEvents(name).map((e) => e.data as ClusterStatusReportedData);
  /** The reports of binding `name` for `cluster`, in order. */
  const workloadData = (name: string, cluster: string) =>
    events
      .filter((e) => is(e, EventTypes.WorkloadStatusReported) && e.subject.split('/').at(-1) === name)
      .flatMap(clusterReports)
      .filter((d) => d.clusterName === cluster);
  const workloadEventsOf = (name: string) =>
    events.filter((e) => is(e, EventTypes.WorkloadStatusReported) && e.subject.split('/').at(-1) === name);
  /** Waits for the `n`-th report (1-based) matching `match`, and returns it. */
  const nth = <T>(what: string, list: () => T[], n = 1, match: (t: T) => boolean = () => true) =>
    eventually(() => list().filter(match)[n - 1], WAIT_MS, what);
  const setSimulation = (name: string, change: (s: Record<string, unknown>) => Record<string, unknown>) =>
    store.update({ kind: 'Cluster', name }, (c) => {
      const spec = c.spec as { simulation: Record<string, unknown> };
      return { ...c, spec: { ...spec, simulation: change(spec.simulation) } };
    });
  /** Places binding `name` on `clusters` anew, as the scheduler would. */
  const scaleOn = (name: string, clusters: Array<{ name: string; replicas: number }>) =>
    store.update({ kind: 'ResourceBinding', namespace: 'default', name }, (b) => ({
      ...b,
      spec: { ...(b.spec as object), clusters },
    }));
  /** Every driver of `fleet` has nothing gathered, queued or running. */
  const idle = (fleet: SimulatedFleet, ...clusters: string[]) =>
    Promise.all(clusters.map((c) => fleet.driver(c)!.idle()));

  describe('cluster status', () => {
    it('reports Ready, version and resource summary once, with a ClusterReady event; passes that change nothing report nothing', async () => {
      await store.apply(cluster('m1', sim()));
      const fleet = await startFleet();
      const first = await nth('the ClusterStatusReported', () => clusterData('m1'));
      expect(first).toEqual({
        statusPatch: {
          kubernetesVersion: 'v1.31.0',
          // Karmada's message is held by kube/cluster-status.test.ts: the same code reports it for either cluster.
          conditions: [expect.objectContaining({ type: 'Ready', status: 'True', reason: 'ClusterReady' })],
          resourceSummary: {
            allocatable: { cpu: '4', memory: '8Gi', pods: '110' },
            allocated: { cpu: '0', memory: '0', pods: '0' },
            allocating: { cpu: '0', memory: '0', pods: '0' },
            allocatableModelings: DEFAULT_RESOURCE_MODELS.map(({ grade }) => ({ grade, count: grade === 1 ? 1 : 0 })),
          },
          foreignHorizontalPodAutoscalers: null,
        },
        kubeEvent: {
          type: 'Normal',
          reason: 'ClusterReady',
          message: 'cluster m1 is ready: cluster is healthy and ready to accept workloads',
        },
      });
      await fleet.driver('m1')!.reconcileNow();
      await fleet.driver('m1')!.reconcileNow();
      expect(clusterEvents('m1')).toHaveLength(1);
    });

    it('grades the cluster by its own spec.resourceModels when it has them', async () => {
      await store.apply(
        cluster('m1', sim(), {
          resourceModels: [
            { grade: 0, ranges: [{ name: 'cpu', min: '0', max: '3' }] },
            { grade: 1, ranges: [{ name: 'cpu', min: '3', max: '8' }] },
          ],
        }),
      );
      await startFleet();
      const first = await nth('the ClusterStatusReported', () => clusterData('m1'));
      expect(first.statusPatch.resourceSummary?.allocatableModelings).toEqual([
        { grade: 0, count: 0 },
        { grade: 1, count: 1 },
      ]);
    });

    it('serves only the Clusters with spec.simulation: a real cluster and its part of a binding are not its', async () => {
      await store.apply(cluster('real'));
      await store.apply(cluster('m1', sim()));
      const web = deployment('web', { replicas: 2, cpu: '100m' });
      await store.apply(web);
      await store.apply(binding(web, [{ name: 'real', replicas: 2 }]));
      const fleet = await startFleet();
      await nth('m1 reported', () => clusterData('m1'));
      await idle(fleet, 'm1');
      expect(fleet.member('real')).toBeUndefined();
      expect(clusterEvents('real')).toEqual([]);
      expect(workloadEventsOf('web-deployment')).toEqual([]);
    });

    it('fails and recovers: Ready False (ClusterNotReachable) keeps the last summary and the workload Unknown, then Ready again; each report its own id', async () => {
      await store.apply(cluster('m1', sim()));
      const web = deployment('web', { replicas: 2, cpu: '500m', memory: '1Gi' });
      await store.apply(web);
      await store.apply(binding(web, [{ name: 'm1', replicas: 2 }], { replicas: 2 }));
      const fleet = await startFleet();
      await nth(
        'web Healthy on m1',
        () => workloadData('web-deployment', 'm1'),
        1,
        (d) => d.health === 'Healthy',
      );

      await setSimulation('m1', (s) => ({ ...s, failed: true }));
      const failed = await nth('the Ready False report', () => clusterData('m1'), 2);
      expect(failed).toEqual({
        statusPatch: {
          conditions: [
            { type: 'Ready', status: 'False', reason: 'ClusterNotReachable', message: 'cluster is not reachable' },
          ],
        },
        kubeEvent: {
          type: 'Warning',
          reason: 'ClusterNotReady',
          message: 'cluster m1 is not ready: cluster is not reachable',
        },
      });
      expect(await nth('web Unknown', () => workloadData('web-deployment', 'm1'), 2)).toEqual({
        clusterName: 'm1',
        applied: false,
        health: 'Unknown',
        appliedMessage: 'cluster "m1" is not reachable',
        targetClusters: ['m1'],
      });
      // Passes while it stays failed report nothing new.
      await fleet.driver('m1')!.reconcileNow();
      expect(clusterEvents('m1')).toHaveLength(2);

      await setSimulation('m1', (s) => ({ ...s, failed: false }));
      const recovered = await nth('the Ready True report', () => clusterData('m1'), 3);
      expect(recovered.statusPatch.conditions[0]?.status).toBe('True');
      expect(recovered.kubeEvent?.reason).toBe('ClusterReady');
      expect((await nth('web reported again', () => workloadData('web-deployment', 'm1'), 3)).health).toBe('Healthy');
      // Ready, not Ready, Ready: three facts, three ids.
      expect(new Set(clusterEvents('m1').map((e) => e.id)).size).toBe(3);
    });

    it('reports the HPAs made without Flotilla, sorted, and removes the field once they are gone', async () => {
      await store.apply(cluster('m1', sim()));
      await startFleet();
      await nth('m1 reported', () => clusterData('m1'));
      const foreign = (name: string, namespace: string) => ({
        name,
        namespace,
        scaleTargetRef: { kind: 'Deployment', name: 'web' },
        maxReplicas: 4,
      });
      await setSimulation('m1', (s) => ({
        ...s,
        foreignHorizontalPodAutoscalers: [foreign('b', 'shop'), foreign('a', 'shop')],
      }));
      const added = await nth('the foreign HPAs', () => clusterData('m1'), 2);
      expect(added.statusPatch.foreignHorizontalPodAutoscalers).toEqual([
        { namespace: 'shop', name: 'a', scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 4 },
        { namespace: 'shop', name: 'b', scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 4 },
      ]);
      expect(added.kubeEvent).toBeUndefined();
      await setSimulation('m1', ({ foreignHorizontalPodAutoscalers: _gone, ...s }) => s);
      const gone = await nth('the foreign HPAs gone', () => clusterData('m1'), 3);
      expect(gone.statusPatch.foreignHorizontalPodAutoscalers).toBeNull();
    });

    it('a changed capacity is reported without a Ready event', async () => {
      await store.apply(cluster('m1', sim()));
      await startFleet();
      await nth('m1 reported', () => clusterData('m1'));
      await setSimulation('m1', (s) => ({ ...s, allocatable: { cpu: '16', memory: '64Gi', pods: '110' } }));
      const changed = await nth('the new capacity', () => clusterData('m1'), 2);
      expect(changed.statusPatch.resourceSummary?.allocatable).toEqual({ cpu: '16', memory: '64Gi', pods: '110' });
      expect(changed.kubeEvent).toBeUndefined();
    });

    // The simulated API server's /readyz says why it is not ok, and the kube driver's NotReady carries it (the tick
    // loop reported it too, as reason InvalidSimulation).
    it('an invalid simulation makes the cluster NotReady with the field path in the message', async () => {
      await store.apply(cluster('m1', { allocatable: { cpu: 'eight' } }));
      await startFleet();
      const first = await nth('m1 reported', () => clusterData('m1'));
      expect(first.statusPatch.conditions[0]).toMatchObject({
        status: 'False',
        message: expect.stringContaining('spec.simulation.allocatable.cpu: invalid quantity "eight"'),
      });
    });

    it('a new fleet (a new leader) repeats nothing the stored status says; a change after it is reported', async () => {
      await store.apply(cluster('m1', sim()));
      const web = deployment('web', { replicas: 2, cpu: '1' });
      await store.apply(web);
      await store.apply(binding(web, [{ name: 'm1', replicas: 2 }], { replicas: 2 }));
      const first = await startFleet();
      const reported = await nth('m1 reported', () => clusterEvents('m1'));
      const ws = await nth('web reported', () => workloadData('web-deployment', 'm1'));
      await stopFleet(first);
      // What the status writer would have folded (it runs as its own service; here the records are written directly).
      const patch = (reported.data as ClusterStatusReportedData).statusPatch;
      await createJson(bus.status, objectKey({ kind: 'Cluster', name: 'm1' }), {
        seq: 1,
        status: { ...patch, conditions: patch.conditions.map((c) => ({ ...c, lastTransitionTime: reported.time })) },
      });
      const { targetClusters: _t, kubeEvent: _k, ...entry } = ws;
      await createJson(
        bus.status,
        objectKey({ kind: 'ResourceBinding', namespace: 'default', name: 'web-deployment' }),
        {
          seq: 1,
          status: { aggregatedStatus: [entry] },
        },
      );
      const before = events.length;

      const second = await startFleet();
      await idle(second, 'm1');
      await second.driver('m1')!.reconcileNow();
      expect(events.slice(before)).toEqual([]);
      await setSimulation('m1', (s) => ({ ...s, failed: true }));
      expect((await nth('the Ready False report', () => clusterData('m1'), 2)).kubeEvent?.reason).toBe(
        'ClusterNotReady',
      );
    });
  });

  describe('workloads', () => {
    it('runs what fits and reports the rest Pending (one PodsPending event per Pending spell), in the summary as allocating', async () => {
      await store.apply(cluster('m1', sim()));
      const a = deployment('a', { replicas: 2, cpu: '500m', memory: '1Gi' });
      const b = deployment('b', { replicas: 10, cpu: '500m', memory: '1Gi' });
      for (const t of [a, b]) await store.apply(t);
      await store.apply(binding(a, [{ name: 'm1', replicas: 2 }], { replicas: 2 }));
      await store.apply(binding(b, [{ name: 'm1', replicas: 10 }], { replicas: 10 }));
      await startFleet();
      expect(await nth('a reported', () => workloadData('a-deployment', 'm1'))).toEqual({
        clusterName: 'm1',
        applied: true,
        health: 'Healthy',
        status: { replicas: 2, readyReplicas: 2, availableReplicas: 2, pendingReplicas: 0, cpuRequestMilli: 500 },
        targetClusters: ['m1'],
      });
      // Namespace/name order: a's pods first, then 6 of b's fill the node's 4 cores.
      expect(await nth('b reported', () => workloadData('b-deployment', 'm1'))).toEqual({
        clusterName: 'm1',
        applied: true,
        health: 'Unhealthy',
        status: { replicas: 10, readyReplicas: 6, availableReplicas: 6, pendingReplicas: 4, cpuRequestMilli: 500 },
        targetClusters: ['m1'],
        // Applied is not running: the binding hears of its Pending pods once.
        kubeEvent: {
          type: 'Warning',
          reason: 'PodsPending',
          message: '4 of 10 pod(s) Pending in cluster m1: no node there fits them',
        },
      });
      const summary = await nth(
        'the full node in the summary',
        () => clusterData('m1'),
        1,
        (d) => d.statusPatch.resourceSummary?.allocating.pods === '4',
      );
      expect(summary.statusPatch.resourceSummary).toEqual({
        allocatable: { cpu: '4', memory: '8Gi', pods: '110' },
        allocated: { cpu: '4', memory: '8Gi', pods: '8' },
        allocating: { cpu: '2', memory: '4Gi', pods: '4' },
        allocatableModelings: DEFAULT_RESOURCE_MODELS.map(({ grade }) => ({ grade, count: grade === 0 ? 1 : 0 })),
      });
      /** b placed anew with `n` replicas, as first reported. */
      const bAt = async (n: number) => {
        await scaleOn('b-deployment', [{ name: 'm1', replicas: n }]);
        return nth(
          `b at ${n}`,
          () => workloadData('b-deployment', 'm1'),
          1,
          (d) => d.status?.replicas === n,
        );
      };
      // Still Pending, one pod fewer wanted: a new report, no second event.
      const fewer = await bAt(9);
      expect(fewer.status?.pendingReplicas).toBe(3);
      expect(fewer.kubeEvent).toBeUndefined();
      // All running again, then Pending anew: one more event.
      const fits = await bAt(6);
      expect(fits.status?.pendingReplicas).toBe(0);
      await scaleOn('b-deployment', [{ name: 'm1', replicas: 10 }]);
      const again = await nth(
        'b at 10 again',
        () => workloadData('b-deployment', 'm1'),
        2,
        (d) => d.status?.replicas === 10,
      );
      expect(again.kubeEvent?.reason).toBe('PodsPending');
      expect(workloadData('b-deployment', 'm1').filter((d) => d.kubeEvent)).toHaveLength(2);
    });

    it('reports one entry per (binding, cluster), only for simulated clusters, a change of several clusters in one event, and only on change', async () => {
      for (const c of [cluster('m1', sim()), cluster('m2', sim()), cluster('real')]) await store.apply(c);
      const web = deployment('web', { replicas: 6, cpu: '100m' });
      await store.apply(web);
      const fleet = await startFleet();
      await idle(fleet, 'm1', 'm2');
      await store.apply(
        binding(
          web,
          [
            { name: 'm1', replicas: 1 },
            { name: 'm2', replicas: 2 },
            { name: 'real', replicas: 3 },
            { name: 'ghost', replicas: 1 },
          ],
          { replicas: 6 },
        ),
      );
      await nth('m1 and m2 reported', () => workloadData('web-deployment', 'm2'));
      await nth('m1 and m2 reported', () => workloadData('web-deployment', 'm1'));
      await idle(fleet, 'm1', 'm2');
      // The two clusters' reports are one event: one write for the status writer, one event in the log.
      expect(
        workloadEventsOf('web-deployment')
          .flatMap(clusterReports)
          .map((d) => d.clusterName),
      ).toEqual(['m1', 'm2']);
      expect(workloadEventsOf('web-deployment')).toHaveLength(1);

      await scaleOn('web-deployment', [
        { name: 'm1', replicas: 1 },
        { name: 'm2', replicas: 3 },
      ]);
      // m1 too: the binding's target clusters, which every report carries, lost real and ghost.
      await nth('m1 again', () => workloadData('web-deployment', 'm1'), 2);
      await nth('m2 again', () => workloadData('web-deployment', 'm2'), 2);
      expect(workloadData('web-deployment', 'm1')[1]?.targetClusters).toEqual(['m1', 'm2']);
      await idle(fleet, 'm1', 'm2');
      const before = workloadEventsOf('web-deployment').length;
      await fleet.driver('m1')!.reconcileNow();
      await fleet.driver('m2')!.reconcileNow();
      expect(workloadEventsOf('web-deployment')).toHaveLength(before); // nothing changed since
    });

    it('reports removed when a binding no longer targets a cluster, and the workload leaves it', async () => {
      for (const c of [cluster('m1', sim()), cluster('m2', sim())]) await store.apply(c);
      const web = deployment('web', { replicas: 1, cpu: '100m' });
      await store.apply(web);
      await store.apply(binding(web, [{ name: 'm1', replicas: 1 }], { replicas: 1 }));
      const fleet = await startFleet();
      await nth('web on m1', () => workloadData('web-deployment', 'm1'));
      await scaleOn('web-deployment', [{ name: 'm2', replicas: 1 }]);
      expect(await nth('web removed from m1', () => workloadData('web-deployment', 'm1'), 2)).toEqual({
        clusterName: 'm1',
        applied: false,
        removed: true,
        targetClusters: ['m2'],
      });
      expect((await nth('web on m2', () => workloadData('web-deployment', 'm2'))).applied).toBe(true);
      expect(fleet.member('m1')!.objects.get('apps/v1', 'Deployment', 'default', 'web')).toBeUndefined();
      await idle(fleet, 'm1', 'm2');
      const before = workloadEventsOf('web-deployment').length;
      await fleet.driver('m1')!.reconcileNow();
      await fleet.driver('m2')!.reconcileNow();
      expect(workloadEventsOf('web-deployment')).toHaveLength(before);
    });

    it('a ClusterResourceBinding is reported cluster-scoped', async () => {
      await store.apply(cluster('m1', sim()));
      const role: StoredObject = {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'ns' },
        rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
      } as StoredObject;
      await store.apply(role);
      await store.apply(binding(role, [{ name: 'm1' }]));
      await startFleet();
      const e = await nth('the ClusterRole reported', () =>
        events.filter((x) => is(x, EventTypes.WorkloadStatusReported)),
      );
      expect(e.subject).toBe('ClusterResourceBinding//ns-clusterrole');
      expect(e.data).toEqual({ clusterName: 'm1', applied: true, health: 'Healthy', targetClusters: ['m1'] });
    });

    // A real API server refuses it (422, naming the field); a projection that threw on the quantity once took the
    // member-agent down from a watch callback.
    it('a bad resource request is reported as not applied, naming the field, as the API server refuses it', async () => {
      await store.apply(cluster('m1', sim()));
      const web = deployment('web', { replicas: 1, cpu: 'much' });
      await store.apply(web);
      await store.apply(binding(web, [{ name: 'm1', replicas: 1 }], { replicas: 1 }));
      await startFleet();
      expect(await nth('web reported', () => workloadData('web-deployment', 'm1'))).toMatchObject({
        applied: false,
        health: 'Unknown',
        appliedMessage: expect.stringMatching(/spec\.template\.spec\.containers\[0\]\.resources\.requests.*much/),
      });
    });
  });

  describe('reserved namespaces', () => {
    const refusal = (ns: string, entries = 'kube-*, flotilla-system') =>
      `namespace "${ns}" is reserved (${entries}): Flotilla does not propagate from or into it; not applied`;
    it.each([
      ['kube-system', undefined, refusal('kube-system')],
      ['flotilla-system', undefined, refusal('flotilla-system')],
      ['payments (configured)', ['payments'], refusal('payments', 'kube-*, flotilla-system, payments')],
      ['default', undefined, undefined],
      ['payments (not configured)', undefined, undefined],
    ] as const)('a workload in %s', async (what, extra, message) => {
      const namespace = what.split(' ')[0]!;
      await store.apply(cluster('m1', sim()));
      const web = deployment('web', { replicas: 2, cpu: '100m', namespace });
      await store.apply(web);
      await store.apply(binding(web, [{ name: 'm1', replicas: 2 }], { replicas: 2 }));
      const fleet = await startFleet(extra ? { reservedNamespaces: new ReservedNamespaces(extra) } : {});
      const data = await nth('web reported', () => workloadData('web-deployment', 'm1'));
      if (message === undefined) expect(data).toMatchObject({ applied: true });
      else expect(data).toMatchObject({ applied: false, health: 'Unknown', appliedMessage: message });
      // Nothing of it is placed: the cluster's pods are the workload's only when it was applied.
      await idle(fleet, 'm1');
      expect(fleet.member('m1')!.objects.get('apps/v1', 'Deployment', namespace, 'web') !== undefined).toBe(
        message === undefined,
      );
      expect(clusterData('m1').at(-1)?.statusPatch.resourceSummary?.allocated.pods).toBe(
        message === undefined ? '2' : '0',
      );
    });
  });

  describe('the HPA loop', () => {
    /** HPA syncs (and pod metrics) every SYNC_MS of real time. */
    const SYNC_MS = 200;
    const loaded = (model: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      cluster(
        'm1',
        sim({
          allocatable: { cpu: '64', memory: '256Gi', pods: '110' },
          loads: [{ workload: { kind: 'Deployment', namespace: 'default', name: 'web' }, model }],
          ...extra,
        }),
      );
    const web = deployment('web', { replicas: 2, cpu: '500m' });
    /** The workload web and its HPA (min..max at 50 %), both bound to m1; web at 2 replicas there. */
    async function webWithHpa(min: number, max: number, annotations?: Record<string, string>): Promise<void> {
      await store.apply(web);
      await store.apply(binding(web, [{ name: 'm1', replicas: 2 }], { replicas: 2 }));
      const h = hpa('web', 'web', min, max, 50);
      await store.apply(h);
      await store.apply(binding(h, [{ name: 'm1' }], annotations ? { annotations } : {}));
    }
    const replicasIn = (fleet: SimulatedFleet) =>
      (fleet.member('m1')?.objects.get('apps/v1', 'Deployment', 'default', 'web')?.spec as { replicas?: number })
        ?.replicas;
    /** The replicas web was reported with, each change once. */
    const reportedReplicas = () =>
      workloadData('web-deployment', 'm1')
        .map((d) => d.status?.replicas)
        .filter((r, i, all) => r !== undefined && r !== all[i - 1]);

    it('scales the cluster replicas to the load, within the scale-up limit and maxReplicas, and reports them', async () => {
      await store.apply(loaded({ type: 'constant', cores: 4 }));
      // 4 cores over 500m pods at a 50% target wants 16 pods; the scale-up limit doubles per sync; max is 10.
      await webWithHpa(1, 10);
      const fleet = await startFleet({ hpaSyncPeriodMs: SYNC_MS });
      await nth(
        'web at 10',
        () => workloadData('web-deployment', 'm1'),
        1,
        (d) => d.status?.hpa?.desiredReplicas === 10,
      );
      expect(reportedReplicas()).toEqual([2, 4, 8, 10]);
      expect(replicasIn(fleet)).toBe(10);
    });

    it("runs a FederatedHPA's member HPA within this cluster's limits from the binding's member-limits override", async () => {
      await store.apply(loaded({ type: 'constant', cores: 4 }));
      await webWithHpa(1, 10, { [FederatedHpaAnnotations.memberLimits]: '{"m1":{"minReplicas":2,"maxReplicas":6}}' });
      const fleet = await startFleet({ hpaSyncPeriodMs: SYNC_MS });
      const at6 = await nth(
        'web at 6',
        () => workloadData('web-deployment', 'm1'),
        1,
        (d) => d.status?.hpa?.desiredReplicas === 6,
      );
      // capped at this cluster's max of 6 (the template says 10)
      expect(at6.status?.hpa).toMatchObject({ minReplicas: 2, maxReplicas: 6 });
      expect(reportedReplicas()).toEqual([2, 4, 6]);
      expect(replicasIn(fleet)).toBe(6);
    });

    it('an unreadable member-limits override is a problem of the HPA binding: no member HPA, the replicas left alone', async () => {
      await store.apply(loaded({ type: 'constant', cores: 4 }));
      await webWithHpa(1, 10, { [FederatedHpaAnnotations.memberLimits]: '{' });
      const fleet = await startFleet({ hpaSyncPeriodMs: SYNC_MS });
      expect(
        await nth('the HPA binding reported', () => workloadData('web-horizontalpodautoscaler', 'm1')),
      ).toMatchObject({
        applied: false,
        health: 'Unknown',
        appliedMessage: expect.stringContaining(`metadata.annotations["${FederatedHpaAnnotations.memberLimits}"]`),
      });
      expect([...fleet.member('m1')!.objects.list('autoscaling/v2', 'HorizontalPodAutoscaler')]).toEqual([]);
      expect(replicasIn(fleet)).toBe(2);
    });

    it("reports the ready pods' cpu usage apart from the status, one pod's request and the member HPA's status", async () => {
      await store.apply(loaded({ type: 'constant', cores: 4 }));
      await webWithHpa(1, 10);
      await startFleet({ hpaSyncPeriodMs: SYNC_MS });
      const first = await nth(
        "the HPA's first sync reported",
        () => workloadData('web-deployment', 'm1'),
        1,
        (d) => d.status?.hpa?.currentCPUUtilizationPercentage !== undefined,
      );
      expect(first.status).toMatchObject({
        replicas: 4,
        readyReplicas: 4,
        cpuRequestMilli: 500,
        // 4 cores on 2 pods of 500m
        hpa: { minReplicas: 1, maxReplicas: 10, desiredReplicas: 4, currentCPUUtilizationPercentage: 400 },
      });
      const usage = await eventually(
        () =>
          getJson<MemberUsage>(
            bus.usage,
            memberUsageKey({ kind: 'ResourceBinding', namespace: 'default', name: 'web-deployment' }, 'm1'),
          ),
        WAIT_MS,
        'the usage of web on m1',
      );
      expect(usage.value.cpuUsageMilli).toBe(4000);
      for (const e of workloadEventsOf('web-deployment')) expect(JSON.stringify(e.data)).not.toContain('cpuUsageMilli');
    });

    it('follows the binding scaling the workload (a FederatedHPA sending a cluster to 0): the HPA then stays there', async () => {
      await store.apply(loaded({ type: 'constant', cores: 0.1 }));
      await webWithHpa(1, 10);
      // No downscale window, so each sync shows the HPA's own answer at once.
      const fleet = await startFleet({ hpaSyncPeriodMs: SYNC_MS, hpa: { downscaleStabilizationMs: 0 } });
      const hpaStatus = () =>
        fleet.member('m1')?.objects.get('autoscaling/v2', 'HorizontalPodAutoscaler', 'default', 'web')?.status as
          | { currentReplicas: number; desiredReplicas: number }
          | undefined;
      // 0.1 core is 20 % of one 500m pod
      await eventually(() => (replicasIn(fleet) === 1 ? true : undefined), WAIT_MS, 'web at 1');
      await scaleOn('web-deployment', [{ name: 'm1', replicas: 0 }]);
      // at 0 with minReplicas 1 Kubernetes' HPA does not scale ("scaling is disabled"): it syncs and stays at 0
      await eventually(() => (hpaStatus()?.currentReplicas === 0 ? true : undefined), WAIT_MS, 'the HPA at 0');
      expect(replicasIn(fleet)).toBe(0);
      await scaleOn('web-deployment', [{ name: 'm1', replicas: 1 }]);
      await eventually(() => (hpaStatus()?.currentReplicas === 1 ? true : undefined), WAIT_MS, 'the HPA back at 1');
      expect(replicasIn(fleet)).toBe(1);
    });

    it('an HPA no longer propagated is removed from the cluster, and the binding has the replicas again', async () => {
      await store.apply(loaded({ type: 'constant', cores: 4 }));
      await webWithHpa(1, 10);
      const fleet = await startFleet({ hpaSyncPeriodMs: SYNC_MS });
      await eventually(() => (replicasIn(fleet) === 10 ? true : undefined), WAIT_MS, 'web at 10');
      await store.delete({ kind: 'ResourceBinding', namespace: 'default', name: 'web-horizontalpodautoscaler' });
      await eventually(() => (replicasIn(fleet) === 2 ? true : undefined), WAIT_MS, "web back at the binding's 2");
      expect([...fleet.member('m1')!.objects.list('autoscaling/v2', 'HorizontalPodAutoscaler')]).toEqual([]);
    });
  });
});
