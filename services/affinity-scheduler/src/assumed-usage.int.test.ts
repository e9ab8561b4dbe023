import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBus } from '@flotilla/bus/testing';
import { eventually } from '@flotilla/testkit';
import { publishEvent, readEvents, type Bus } from '@flotilla/bus';
import { admit } from '@flotilla/api';
import { ObjectStore, StatusStore, type StoredObject } from '@flotilla/store';
import { AffinitySchedulerController } from './controller.js';

let bus: Bus & { dispose(): Promise<void> };
let store: ObjectStore;
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
const apply = (o: unknown) => store.apply(admit(o) as StoredObject);
const newController = () =>
  new AffinitySchedulerController({
    bus,
    store,
    publish: (e) => publishEvent(bus, e),
    logger: silent,
    failoverGraceMs: 60_000,
    resyncMs: 60_000,
  });

const deployment = (name: string, replicas: number) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'default', labels: { tiny: 'yes' } },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
  },
});

async function lastDecision(name: string): Promise<{ type: string; clusters?: unknown }> {
  let last: { type: string; data: unknown } | undefined;
  for await (const d of readEvents(bus, { filter: { kind: 'ResourceBinding', namespace: 'default', name } }))
    if (/BindingSchedule(d|Failed)$/.test(d.event.type)) last = d.event as never;
  return last
    ? { type: last.type.replace(/^.*\./, ''), clusters: (last.data as { clusters?: unknown }).clusters }
    : { type: 'none' };
}

beforeAll(async () => {
  bus = await testBus('assume');
  store = new ObjectStore(bus);
  await store.apply(
    admit({
      apiVersion: 'cluster.karmada.io/v1alpha1',
      kind: 'Cluster',
      metadata: { name: 'tiny' },
      spec: {},
    }) as StoredObject,
  );
  // The member reports room for 4 pods and nothing running: it has not caught up with any decision yet.
  await new StatusStore(bus).fold({ kind: 'Cluster', name: 'tiny' }, 1, () => ({
    conditions: [{ type: 'Ready', status: 'True', reason: 'ClusterReady', lastTransitionTime: '2026-01-01T00:00:00Z' }],
    resourceSummary: { allocatable: { cpu: '8', memory: '8Gi', pods: '4' }, allocated: { pods: '0' } },
  }));
  await apply({
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'PropagationPolicy',
    metadata: { name: 'tiny', namespace: 'default' },
    spec: {
      resourceSelectors: [
        { apiVersion: 'apps/v1', kind: 'Deployment', labelSelector: { matchLabels: { tiny: 'yes' } } },
      ],
      placement: {
        clusterAffinity: { clusterNames: ['tiny'] },
        replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Aggregated' },
      },
    },
  });
});
afterAll(async () => {
  await bus?.dispose();
});

describe('the assume cache across a leader change', () => {
  it('a new leader counts what the previous one assigned but the cluster has not reported', async () => {
    const first = newController();
    await first.start();
    await apply(deployment('a', 3));
    await eventually(
      async () => ((await lastDecision('a-deployment')).type === 'BindingScheduled' ? true : undefined),
      10_000,
      'a scheduled',
    );
    await first.stop();

    // A new leader starts from stored state only: the cluster still reports 4 free pods.
    const second = newController();
    await second.start();
    try {
      await apply(deployment('b', 2));
      const decision = await eventually(
        async () => {
          const d = await lastDecision('b-deployment');
          return d.type === 'none' ? undefined : d;
        },
        10_000,
        'b decided',
      );
      expect(decision.type).toBe('BindingScheduleFailed');
      const b = await store.get({ kind: 'ResourceBinding', namespace: 'default', name: 'b-deployment' });
      expect((b?.spec as { clusters?: unknown[] }).clusters ?? []).toEqual([]);
    } finally {
      await second.stop();
    }
  });
});
