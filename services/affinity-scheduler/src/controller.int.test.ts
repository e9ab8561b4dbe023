import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { testBus } from '@flotilla/bus/testing';
import { eventually, metricSum } from '@flotilla/testkit';
import { publishEvent, readEvents, type Bus, type CloudEvent } from '@flotilla/bus';
import { admit, FederatedHpaAnnotations } from '@flotilla/api';
import { ObjectStore, StatusStore, type StoredObject } from '@flotilla/store';
import { Registry } from 'prom-client';
import { AffinitySchedulerController } from './controller.js';

let bus: Bus & { dispose(): Promise<void> };
let store: ObjectStore;
let controller: AffinitySchedulerController;
const registry = new Registry();
let seq = 1_000_000;
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

async function cluster(name: string, ready: boolean, cpu = '8') {
  await store.apply(
    admit({
      apiVersion: 'cluster.karmada.io/v1alpha1',
      kind: 'Cluster',
      metadata: { name, labels: { name } },
      spec: {},
    }) as StoredObject,
  );
  await reportCluster(name, ready, cpu);
}

/** Writes a cluster's status as the status writer would after a member-agent report. */
async function reportCluster(name: string, ready: boolean, cpu = '8') {
  await new StatusStore(bus).fold({ kind: 'Cluster', name }, seq++, () => ({
    conditions: [
      {
        type: 'Ready',
        status: ready ? 'True' : 'False',
        reason: ready ? 'ClusterReady' : 'ClusterNotReachable',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ],
    resourceSummary: {
      allocatable: { cpu, memory: '64Gi', pods: '110' },
      allocated: { cpu: '0', memory: '0', pods: '0' },
    },
  }));
}

const apply = (o: unknown) => store.apply(admit(o) as StoredObject);
const binding = (name: string) => store.get({ kind: 'ResourceBinding', namespace: 'default', name });
const clustersOf = async (name: string) =>
  ((await binding(name))?.spec as { clusters?: Array<{ name: string; replicas?: number }> } | undefined)?.clusters;

beforeAll(async () => {
  bus = await testBus('sched');
  store = new ObjectStore(bus);
  await cluster('member1', true);
  await cluster('member2', true);
  await cluster('member3', true, '2');
  controller = new AffinitySchedulerController({
    bus,
    store,
    publish: (e) => publishEvent(bus, e),
    logger: silent,
    failoverGraceMs: 200,
    resyncMs: 60_000,
    registry,
  });
  await controller.start();
});
afterAll(async () => {
  await controller?.stop();
  await bus?.dispose();
});

const deployment = (name: string, replicas: number) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'default' },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '500m', memory: '256Mi' } } }] },
    },
  },
});

describe('affinity scheduler (in-process, real NATS)', () => {
  it('the multiple scheduling groups proposal: falls through an unavailable group, then fails over to the next group when the cluster is tainted', async () => {
    await apply(deployment('nginx', 2));
    await apply({
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: 'nginx', namespace: 'default' },
      spec: {
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'nginx' }],
        placement: {
          clusterAffinities: [
            { affinityName: 'dc-shanghai', clusterNames: ['unavailable'] },
            { affinityName: 'dc-beijing', clusterNames: ['member1'] },
            { affinityName: 'dc-hongkong', clusterNames: ['member2'] },
          ],
          replicaScheduling: { replicaSchedulingType: 'Duplicated' },
        },
      },
    });
    expect(
      await eventually(
        async () => ((await clustersOf('nginx-deployment'))?.length ? clustersOf('nginx-deployment') : undefined),
        10_000,
        'nginx scheduled',
      ),
    ).toEqual([{ name: 'member1', replicas: 2 }]);
    const scheduled: CloudEvent[] = [];
    for await (const d of readEvents(bus, {
      filter: { kind: 'ResourceBinding', name: 'nginx-deployment', type: 'BindingScheduled' },
    }))
      scheduled.push(d.event);
    expect((scheduled.at(-1)!.data as { affinityName: string }).affinityName).toBe('dc-beijing');
    // fold the decision into status as the status writer would, so the scheduler resumes from dc-beijing
    await new StatusStore(bus).fold(
      { kind: 'ResourceBinding', namespace: 'default', name: 'nginx-deployment' },
      seq++,
      () => (scheduled.at(-1)!.data as { statusPatch: object }).statusPatch,
    );

    await reportCluster('member1', false);
    const moved = await eventually(
      async () => {
        const c = await clustersOf('nginx-deployment');
        return c?.[0]?.name === 'member2' ? c : undefined;
      },
      10_000,
      'failover to dc-hongkong',
    );
    expect(moved).toEqual([{ name: 'member2', replicas: 2 }]);
    const taints = (
      (await store.mustGet({ kind: 'Cluster', name: 'member1' })).spec as {
        taints?: Array<{ key: string; effect: string }>;
      }
    ).taints;
    expect(taints?.map((t) => `${t.key}:${t.effect}`)).toEqual(['cluster.karmada.io/not-ready:NoExecute']);

    // recovery removes the taint but does not pull nginx back (that is the rebalancer's job)
    await reportCluster('member1', true);
    await eventually(
      async () =>
        ((await store.mustGet({ kind: 'Cluster', name: 'member1' })).spec as { taints?: unknown[] }).taints ===
        undefined
          ? true
          : undefined,
      10_000,
      'taint removed',
    );
    await controller.idle();
    expect(await clustersOf('nginx-deployment')).toEqual([{ name: 'member2', replicas: 2 }]);
  });

  it('divides by static weights and follows a scale-up in Steady mode', async () => {
    await apply(deployment('web', 6));
    await apply({
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }],
        placement: {
          clusterAffinity: { clusterNames: ['member2', 'member3'] },
          replicaScheduling: {
            replicaSchedulingType: 'Divided',
            replicaDivisionPreference: 'Weighted',
            weightPreference: {
              staticWeightList: [
                { targetCluster: { clusterNames: ['member2'] }, weight: 2 },
                { targetCluster: { clusterNames: ['member3'] }, weight: 1 },
              ],
            },
          },
        },
      },
    });
    const first = await eventually(
      async () => ((await clustersOf('web-deployment'))?.length ? clustersOf('web-deployment') : undefined),
      10_000,
      'web scheduled',
    );
    expect(first).toEqual([
      { name: 'member2', replicas: 4 },
      { name: 'member3', replicas: 2 },
    ]);
    await apply(deployment('web', 9));
    const scaled = await eventually(
      async () => {
        const c = await clustersOf('web-deployment');
        return c && c.reduce((s, x) => s + (x.replicas ?? 0), 0) === 9 ? c : undefined;
      },
      10_000,
      'scale-up',
    );
    expect(scaled).toEqual([
      { name: 'member2', replicas: 6 },
      { name: 'member3', replicas: 3 },
    ]);
  });

  const policy = (name: string, placement: object, extra: object = {}, selects = name) => ({
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'PropagationPolicy',
    metadata: { name, namespace: 'default' },
    spec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: selects }], placement, ...extra },
  });
  /** Once the informers hold what was just written (and queued what it changed), waits for the queues. */
  const settle = async () => {
    await controller.caughtUp();
    await controller.idle();
  };
  const taintsOf = async (name: string) =>
    ((await store.mustGet({ kind: 'Cluster', name })).spec as { taints?: Array<{ key: string }> }).taints;
  const equalWeights = (a: string, b: string) => ({
    clusterAffinity: { clusterNames: [a, b] },
    replicaScheduling: {
      replicaSchedulingType: 'Divided',
      replicaDivisionPreference: 'Weighted',
      weightPreference: { staticWeightList: [{ targetCluster: { clusterNames: [a, b] }, weight: 1 }] },
    },
  });

  it('static weights: an evicted cluster gives its replicas up and does not take them back when it recovers', async () => {
    await cluster('static1', true);
    await cluster('static2', true);
    await apply(deployment('statics', 4));
    await apply(policy('statics', equalWeights('static1', 'static2')));
    expect(
      await eventually(
        async () => ((await clustersOf('statics-deployment'))?.length ? clustersOf('statics-deployment') : undefined),
        10_000,
        'statics scheduled',
      ),
    ).toEqual([
      { name: 'static1', replicas: 2 },
      { name: 'static2', replicas: 2 },
    ]);
    await reportCluster('static2', false);
    const evicted = await eventually(
      async () => {
        const c = await clustersOf('statics-deployment');
        return c?.length === 1 ? c : undefined;
      },
      10_000,
      'static2 evicted',
    );
    expect(evicted).toEqual([{ name: 'static1', replicas: 4 }]);

    await reportCluster('static2', true);
    await eventually(
      async () => ((await taintsOf('static2')) === undefined ? true : undefined),
      10_000,
      'taint removed',
    );
    await settle();
    expect(await clustersOf('statics-deployment')).toEqual([{ name: 'static1', replicas: 4 }]);
  });

  it('moves replicas off a tainted cluster when the toleration seconds run out, not at the next resync', async () => {
    await cluster('tol1', true);
    await cluster('tol2', true);
    await apply(deployment('tolerant', 4));
    const tolerations = [
      { key: 'cluster.karmada.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 2 },
    ];
    await apply(policy('tolerant', { ...equalWeights('tol1', 'tol2'), clusterTolerations: tolerations }));
    await eventually(
      async () => ((await clustersOf('tolerant-deployment'))?.length === 2 ? true : undefined),
      10_000,
      'tolerant scheduled',
    );
    const delayed = vi.spyOn(controller.scheduleQueue, 'addAfter');
    await reportCluster('tol2', false);
    await eventually(async () => ((await taintsOf('tol2'))?.length ? true : undefined), 10_000, 'tol2 tainted');
    await settle();
    expect((await clustersOf('tolerant-deployment'))?.length).toBe(2); // tolerated for now
    // looked at again when the seconds run out (the resync visits a few keys a second here, so it alone proves nothing)
    const rechecks = delayed.mock.calls
      .filter(([key]) => key === 'ResourceBinding.default.tolerant-deployment')
      .map(([, ms]) => ms);
    delayed.mockRestore();
    expect(rechecks.length).toBeGreaterThan(0);
    expect(rechecks.every((ms) => ms > 0 && ms <= 2_100)).toBe(true);
    const moved = await eventually(
      async () => {
        const c = await clustersOf('tolerant-deployment');
        return c?.length === 1 ? c : undefined;
      },
      8_000,
      'moved when the toleration ran out',
    );
    expect(moved).toEqual([{ name: 'tol1', replicas: 4 }]);
  });

  it('drops the requests from the binding when the template drops them', async () => {
    await apply(deployment('plain', 1));
    await apply(policy('plain', { clusterAffinity: { clusterNames: ['member2'] } }));
    const requirements = async () =>
      ((await binding('plain-deployment'))?.spec as { replicaRequirements?: unknown } | undefined)?.replicaRequirements;
    await eventually(async () => ((await requirements()) ? true : undefined), 10_000, 'binding with requests');
    const noRequests = deployment('plain', 1);
    delete (noRequests.spec.template.spec.containers[0] as { resources?: unknown }).resources;
    await apply(noRequests);
    await eventually(async () => ((await requirements()) === undefined ? true : undefined), 10_000, 'requests dropped');
  });

  it('keeps the claiming policy against a higher-priority newcomer unless it preempts', async () => {
    await apply(deployment('claimed', 1));
    await apply(policy('claimed', { clusterAffinity: { clusterNames: ['member2'] } }, { priority: 1 }));
    const claim = async () =>
      (await binding('claimed-deployment'))?.metadata.annotations?.['propagationpolicy.karmada.io/name'];
    await eventually(async () => ((await claim()) === 'claimed' ? true : undefined), 10_000, 'claimed');
    const newcomer = (preemption: string) =>
      policy('newcomer', { clusterAffinity: { clusterNames: ['member3'] } }, { priority: 5, preemption }, 'claimed');
    await apply(newcomer('Never'));
    await settle();
    expect(await claim()).toBe('claimed');
    await apply(newcomer('Always'));
    await eventually(async () => ((await claim()) === 'newcomer' ? true : undefined), 10_000, 'preempted');
    expect(
      await eventually(
        async () =>
          (await clustersOf('claimed-deployment'))?.[0]?.name === 'member3'
            ? clustersOf('claimed-deployment')
            : undefined,
        10_000,
        'placed by the newcomer',
      ),
    ).toEqual([{ name: 'member3', replicas: 1 }]);
  });

  it('marks Scheduled a binding a FederatedHPA claimed before the scheduler got to it, and hands it over', async () => {
    // A namespace of its own: no policy of the other cases claims the template, so nothing but the hand-over acts.
    const ref = { kind: 'ResourceBinding', namespace: 'handover', name: 'shop-deployment' };
    await apply({
      apiVersion: 'work.karmada.io/v1alpha2',
      kind: 'ResourceBinding',
      metadata: { name: ref.name, namespace: ref.namespace, annotations: { [FederatedHpaAnnotations.owner]: 'shop' } },
      spec: {
        resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: ref.namespace, name: 'shop' },
        placement: { clusterAffinity: { clusterNames: ['member1', 'member2'] } },
      },
    });
    await apply({ ...deployment('shop', 3), metadata: { name: 'shop', namespace: ref.namespace } });
    const announced = await eventually(
      async () => {
        for await (const d of readEvents(bus, { filter: { ...ref, type: 'BindingScheduled' } })) return d.event;
        return undefined;
      },
      10_000,
      'the hand-over announced',
    );
    const data = announced.data as {
      kept?: boolean;
      statusPatch: { conditions: Array<{ type: string; status: string }> };
    };
    expect(data.kept).toBe(true);
    expect(data.statusPatch.conditions).toEqual([expect.objectContaining({ type: 'Scheduled', status: 'True' })]);
    // The replicas are the hpa-assigner's to divide: the scheduler wrote only where they may go.
    const stored = await store.get(ref);
    expect(stored?.metadata.annotations?.[FederatedHpaAnnotations.feasibleClusters]).toBe('member1,member2');
    expect(stored?.spec).not.toHaveProperty('clusters');
  });

  it('deletes the binding when its template goes', async () => {
    await store.delete({ kind: 'Deployment', namespace: 'default', name: 'web' });
    await eventually(async () => ((await binding('web-deployment')) ? undefined : true), 10_000, 'binding removed');
  });

  it("counts Karmada's schedule attempts by result and type, and reports reconciles, queues and objects", async () => {
    const sample = (name: string, labels: Record<string, string> = {}) => metricSum(registry, name, labels);
    const unschedulable = { result: 'unschedulable', schedule_type: 'PlacementChanged' };
    const before = await sample('karmada_scheduler_schedule_attempts_total', unschedulable);
    await apply(deployment('nowhere', 1));
    await apply({
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: 'nowhere', namespace: 'default' },
      spec: {
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'nowhere' }],
        placement: { clusterAffinity: { clusterNames: ['no-such-cluster'] } },
      },
    });
    await eventually(
      async () =>
        (await sample('karmada_scheduler_schedule_attempts_total', unschedulable)) > before ? true : undefined,
      10_000,
      'an unschedulable attempt',
    );
    expect(await sample('karmada_scheduler_schedule_attempts_total', { result: 'scheduled' })).toBeGreaterThan(0);
    expect(await sample('karmada_scheduler_schedule_attempts_total', { result: 'error' })).toBe(0);
    expect(await sample('karmada_scheduler_scheduling_algorithm_duration_seconds', { le: '+Inf' })).toBeGreaterThan(0);
    // cluster-health looks again when a cluster's grace period would end: within it, each reconcile is a requeue.
    for (const [controllerName, result] of [
      ['detection', 'success'],
      ['scheduling', 'success'],
      ['cluster-taints', 'success'],
      ['cluster-health', 'requeue'],
    ] as const) {
      expect(
        await sample('flotilla_reconcile_total', { controller: controllerName, result }),
        controllerName,
      ).toBeGreaterThan(0);
    }
    await controller.idle();
    for (const kind of ['Cluster', 'PropagationPolicy', 'Deployment', 'ResourceBinding']) {
      expect(await sample('flotilla_objects', { kind }), kind).toBe((await store.list(kind)).length);
    }
    expect(await sample('flotilla_workqueue_depth', { controller: 'scheduling' })).toBe(0);
  });
});
