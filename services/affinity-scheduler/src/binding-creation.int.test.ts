// A binding placed at its creation while another replica creates it first (two active replicas both detecting one
// template while the member list changes): the creation fails with AlreadyExists after this replica's scheduling
// controller placed and announced the other's binding. That announcement must stay remembered, or the binding's next
// reconcile announces the same generation a second time, as a kept assignment under another event id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBus } from '@flotilla/bus/testing';
import { eventually } from '@flotilla/testkit';
import { publishEvent, readEvents, type Bus } from '@flotilla/bus';
import { admit } from '@flotilla/api';
import { APPLIED_PLACEMENT_ANNOTATION } from '@flotilla/scheduling';
import { ObjectStore, StatusStore, type StoredObject } from '@flotilla/store';
import { AffinitySchedulerController } from './controller.js';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** An object store whose creations of ResourceBindings wait until the test lets them through. */
class GatedStore extends ObjectStore {
  held: StoredObject | undefined;
  private open!: () => void;
  private readonly gate = new Promise<void>((resolve) => {
    this.open = resolve;
  });

  override async create(input: StoredObject): Promise<StoredObject> {
    if (input.kind === 'ResourceBinding') {
      this.held = input;
      await this.gate;
    }
    return super.create(input);
  }

  release(): void {
    this.open();
  }
}

let bus: Bus & { dispose(): Promise<void> };
let controller: AffinitySchedulerController | undefined;

beforeAll(async () => {
  bus = await testBus('sched-create');
});
afterAll(async () => {
  await controller?.stop();
  await bus?.dispose();
});

describe('a binding created by another replica while this one creates it placed', () => {
  it('is announced once per generation', async () => {
    const plain = new ObjectStore(bus);
    for (const name of ['member1', 'member2']) {
      await plain.apply(
        admit({
          apiVersion: 'cluster.karmada.io/v1alpha1',
          kind: 'Cluster',
          metadata: { name },
          spec: {},
        }) as StoredObject,
      );
      await new StatusStore(bus).fold({ kind: 'Cluster', name }, 1, () => ({
        conditions: [
          { type: 'Ready', status: 'True', reason: 'ClusterReady', lastTransitionTime: '2026-01-01T00:00:00Z' },
        ],
        resourceSummary: { allocatable: { cpu: '8', memory: '64Gi', pods: '110' } },
      }));
    }
    const store = new GatedStore(bus);
    controller = new AffinitySchedulerController({
      bus,
      store,
      publish: (e) => publishEvent(bus, e),
      logger: silent,
      failoverGraceMs: 200,
      resyncMs: 60_000,
    });
    await controller.start();
    await plain.apply(
      admit({
        apiVersion: 'policy.karmada.io/v1alpha1',
        kind: 'PropagationPolicy',
        metadata: { name: 'web', namespace: 'default' },
        spec: {
          resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }],
          placement: {
            clusterAffinity: { clusterNames: ['member1', 'member2'] },
            replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Aggregated' },
          },
        },
      }) as StoredObject,
    );
    await plain.apply(
      admit({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'default' },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
        },
      }) as StoredObject,
    );
    // The detection has placed the binding and is creating it; another replica's unplaced creation lands first.
    const held = await eventually(async () => store.held, 10_000, 'the placed creation under way');
    const { clusters: _placed, ...unplacedSpec } = held.spec as Record<string, unknown>;
    const { [APPLIED_PLACEMENT_ANNOTATION]: _applied, ...annotations } = held.metadata.annotations ?? {};
    await plain.create({ ...held, metadata: { ...held.metadata, annotations }, spec: unplacedSpec });
    const ref = { kind: 'ResourceBinding', namespace: 'default', name: 'web-deployment' };
    // This replica's scheduling controller places the other's binding (generation 1 → 2) and announces it.
    const scheduled = await eventually(async () => {
      const b = await plain.get(ref);
      return (b?.spec as { clusters?: unknown[] } | undefined)?.clusters?.length ? b : undefined;
    }, 10_000);
    expect(scheduled?.metadata.generation).toBe(2);
    // Then the creation fails (the binding exists), and the binding is reconciled again.
    store.release();
    await controller.idle();
    await controller.caughtUp();
    await controller.idle();

    const announced: string[] = [];
    for await (const d of readEvents(bus, {
      filter: { kind: 'ResourceBinding', name: 'web-deployment', type: 'BindingScheduled' },
    })) {
      const generation = (d.event.data as { statusPatch: { schedulerObservedGeneration: number } }).statusPatch
        .schedulerObservedGeneration;
      announced.push(`${generation} ${(d.event.data as { kept?: boolean }).kept ? 'kept' : 'scheduled'}`);
    }
    expect(announced).toEqual(['2 scheduled']);
  });
});
