// What scheduling costs, counted: a new binding is created placed (one write, one reconcile of its echo), and a resync
// of bindings nothing changed reconciles none of them (at 50,000 bindings the 30 s resync alone asked for more
// reconciles than the scheduler could do).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBus } from '@flotilla/bus/testing';
import { eventually } from '@flotilla/testkit';
import { publishEvent, type Bus } from '@flotilla/bus';
import { admit } from '@flotilla/api';
import { ObjectStore, StatusStore, type StoredObject } from '@flotilla/store';
import { Registry } from 'prom-client';
import { AffinitySchedulerController } from './controller.js';

const BINDINGS = 20;
let bus: Bus & { dispose(): Promise<void> };
let store: ObjectStore;
let controller: AffinitySchedulerController;
const registry = new Registry();
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
let seq = 1;

const apply = (o: unknown) => store.apply(admit(o) as StoredObject);

async function cluster(name: string, cpu: string) {
  await apply({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name }, spec: {} });
  await new StatusStore(bus).fold({ kind: 'Cluster', name }, seq++, () => ({
    conditions: [{ type: 'Ready', status: 'True', reason: 'ClusterReady', lastTransitionTime: '2026-01-01T00:00:00Z' }],
    resourceSummary: {
      allocatable: { cpu, memory: '64Gi', pods: '110' },
      allocated: { cpu: '0', memory: '0', pods: '0' },
    },
  }));
}

const webDeployment = (i: number, replicas: number) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: `web-${i}`, namespace: 'default', labels: { app: 'web' } },
  spec: {
    replicas,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '100m' } } }] },
    },
  },
});

/** The scheduling controller's counter `series` (reconciles by result, or pass skips), summed over its labels. */
async function count(series: string): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === series);
  return (metric?.values ?? [])
    .filter((v) => v.labels.controller === 'scheduling')
    .reduce((sum, v) => sum + Number(v.value), 0);
}

beforeAll(async () => {
  bus = await testBus('sched-resync');
  store = new ObjectStore(bus);
  await cluster('member1', '8');
  await cluster('member2', '4');
  controller = new AffinitySchedulerController({
    bus,
    store,
    publish: (e) => publishEvent(bus, e),
    logger: silent,
    failoverGraceMs: 60_000,
    resyncMs: 0,
    registry,
  });
  await controller.start();
});
afterAll(async () => {
  await controller?.stop();
  await bus?.dispose();
});

/** Writes to the objects bucket so far. */
const objectWrites = async () => (await bus.jsm.streams.info(`KV_${bus.names.objectsBucket}`)).state.last_seq;

describe('the cost of scheduling, counted', () => {
  it('creates each binding placed, reconciles it once, and a resync of them none', async () => {
    await apply({
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: 'divided', namespace: 'default' },
      spec: {
        resourceSelectors: [
          { apiVersion: 'apps/v1', kind: 'Deployment', labelSelector: { matchLabels: { app: 'web' } } },
        ],
        placement: {
          clusterAffinity: { clusterNames: ['member1', 'member2'] },
          replicaScheduling: {
            replicaSchedulingType: 'Divided',
            replicaDivisionPreference: 'Weighted',
            weightPreference: { dynamicWeight: 'AvailableReplicas' },
          },
        },
      },
    });
    const writesBefore = await objectWrites();
    const reconcilesBefore = await count('flotilla_reconcile_total');
    for (let i = 0; i < BINDINGS; i++) await apply(webDeployment(i, 3));
    await eventually(
      async () => {
        const bindings = await store.list('ResourceBinding', 'default');
        const placed = bindings.filter((b) => ((b.spec as { clusters?: unknown[] }).clusters ?? []).length > 0);
        return placed.length === BINDINGS ? true : undefined;
      },
      20_000,
      `${BINDINGS} bindings placed`,
    );
    // Every write's echo seen and reconciled (each a kept decision now).
    await controller.caughtUp();
    await controller.idle();
    // Per binding: its template and the binding, created placed (no second compare-and-set to place it), and one
    // scheduling reconcile, of the creation's echo.
    expect((await objectWrites()) - writesBefore).toBe(2 * BINDINGS);
    const reconciles = await count('flotilla_reconcile_total');
    expect(reconciles - reconcilesBefore).toBe(BINDINGS);
    const skips = await count('flotilla_reconcile_pass_skips_total');
    controller.resyncScheduling();
    await controller.idle();
    expect(await count('flotilla_reconcile_total')).toBe(reconciles);
    expect((await count('flotilla_reconcile_pass_skips_total')) - skips).toBe(BINDINGS);

    // The members report their pods (the status writer folds each report into the binding's aggregatedStatus): news
    // to the assume cache, none to a kept decision, so the next resync still reconciles none.
    const statuses = new StatusStore(bus);
    for (let i = 0; i < BINDINGS; i++)
      await statuses.fold(
        { kind: 'ResourceBinding', namespace: 'default', name: `web-${i}-deployment` },
        seq++,
        (s) => ({
          ...(s as object),
          aggregatedStatus: [{ clusterName: 'member1', applied: true, status: { replicas: 2, readyReplicas: 2 } }],
        }),
      );
    await controller.caughtUp();
    await controller.idle();
    const afterReports = await count('flotilla_reconcile_total');
    controller.resyncScheduling();
    await controller.idle();
    expect(await count('flotilla_reconcile_total')).toBe(afterReports);

    // A change of one binding's spec (its template's replicas): that one is reconciled, then kept again.
    await apply(webDeployment(0, 5));
    await eventually(
      async () => {
        const b = await store.get({ kind: 'ResourceBinding', namespace: 'default', name: 'web-0-deployment' });
        const clusters = (b?.spec as { clusters?: Array<{ replicas?: number }> } | undefined)?.clusters ?? [];
        return clusters.reduce((n, c) => n + (c.replicas ?? 0), 0) === 5 ? true : undefined;
      },
      20_000,
      'web-0 rescheduled to 5 replicas',
    );
    await controller.caughtUp();
    await controller.idle();
    const afterChange = await count('flotilla_reconcile_total');
    controller.resyncScheduling();
    await controller.idle();
    expect(await count('flotilla_reconcile_total')).toBe(afterChange);
    // A cluster's Cluster object changing (a label) is news to every kept decision: the next pass looks at them all.
    await apply({
      apiVersion: 'cluster.karmada.io/v1alpha1',
      kind: 'Cluster',
      metadata: { name: 'member2', labels: { zone: 'b' } },
      spec: {},
    });
    await controller.caughtUp();
    await controller.idle();
    expect((await count('flotilla_reconcile_total')) - afterChange).toBe(BINDINGS);
  });
});
