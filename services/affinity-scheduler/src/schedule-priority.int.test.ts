import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBus } from '@flotilla/bus/testing';
import { eventually } from '@flotilla/testkit';
import { publishEvent, type Bus } from '@flotilla/bus';
import { admit } from '@flotilla/api';
import { ObjectStore, StatusStore, type StoredObject } from '@flotilla/store';
import { AffinitySchedulerController } from './controller.js';

// Karmada's PriorityBasedScheduling: bindings whose policy names a schedulePriority are scheduled in priority order,
// so when capacity runs out in a burst the higher priority gets it.

let bus: Bus & { dispose(): Promise<void> };
let store: ObjectStore;
let controller: AffinitySchedulerController | undefined;
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
const apply = (o: unknown) => store.apply(admit(o) as StoredObject);

const deployment = (name: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'default' },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '500m', memory: '128Mi' } } }] },
    },
  },
});

const policy = (name: string, priorityClassName: string) => ({
  apiVersion: 'policy.karmada.io/v1alpha1',
  kind: 'PropagationPolicy',
  metadata: { name, namespace: 'default' },
  spec: {
    resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name }],
    placement: {
      clusterAffinity: { clusterNames: ['tight'] },
      replicaScheduling: {
        replicaSchedulingType: 'Divided',
        replicaDivisionPreference: 'Weighted',
        weightPreference: { dynamicWeight: 'AvailableReplicas' },
      },
    },
    schedulePriority: { priorityClassSource: 'KubePriorityClass', priorityClassName },
  },
});

const priorityClass = (name: string, value: number) => ({
  apiVersion: 'scheduling.k8s.io/v1',
  kind: 'PriorityClass',
  metadata: { name },
  value,
});

const bindingOf = (name: string) =>
  store.get({ kind: 'ResourceBinding', namespace: 'default', name: `${name}-deployment` });

beforeAll(async () => {
  bus = await testBus('prio');
  store = new ObjectStore(bus);
});
afterAll(async () => {
  await controller?.stop();
  await bus?.dispose();
});

describe('schedulePriority', () => {
  it('gives the last capacity to the higher priority, though the lower one came first', async () => {
    // One cluster with room for 4 pods of 500m: two workloads of 3 replicas each cannot both fit.
    await apply({
      apiVersion: 'cluster.karmada.io/v1alpha1',
      kind: 'Cluster',
      metadata: { name: 'tight' },
      spec: {},
    });
    await new StatusStore(bus).fold({ kind: 'Cluster', name: 'tight' }, 1, () => ({
      conditions: [
        { type: 'Ready', status: 'True', reason: 'ClusterReady', lastTransitionTime: '2026-01-01T00:00:00Z' },
      ],
      resourceSummary: {
        allocatable: { cpu: '2', memory: '64Gi', pods: '110' },
        allocated: { cpu: '0', memory: '0', pods: '0' },
      },
    }));
    await apply(priorityClass('batch-low', 10));
    await apply(priorityClass('urgent-high', 1_000_000));
    // The low one first: first in, first out, it would take the room.
    await apply(policy('batch', 'batch-low'));
    await apply(deployment('batch'));
    await apply(policy('urgent', 'urgent-high'));
    await apply(deployment('urgent'));

    // Both wait in the scheduler's queue at once, as in a burst.
    controller = new AffinitySchedulerController({
      bus,
      store,
      publish: (e) => publishEvent(bus, e),
      logger: silent,
      failoverGraceMs: 30_000,
      resyncMs: 60_000,
    });
    await controller.start();
    await eventually(
      async () => ((await bindingOf('batch')) && (await bindingOf('urgent')) ? true : undefined),
      10_000,
      'both bindings created',
    );
    await controller.idle();

    type Spec = { schedulePriority?: unknown; clusters?: unknown[] };
    const urgent = (await bindingOf('urgent'))?.spec as Spec;
    const batch = (await bindingOf('batch'))?.spec as Spec;
    expect(urgent.schedulePriority).toEqual({ priority: 1_000_000 });
    expect(batch.schedulePriority).toEqual({ priority: 10 });
    expect(urgent.clusters).toEqual([{ name: 'tight', replicas: 3 }]);
    expect(batch.clusters ?? []).toEqual([]);
  });
});
