import { afterEach, describe, expect, it } from 'vitest';
import { testBus } from '@flotilla/bus/testing';
import { cloudEvent, publishEvent, type Bus } from '@flotilla/bus';
import { trailAddresses, type AutoscalerLike } from '@flotilla/replica-trail';
import { Informers, ObjectStore, readReplicaTrail, replicaWriterSpecs } from '@flotilla/store';
import { metricSum } from '@flotilla/testkit';
import { Registry } from 'prom-client';
import { TrailProjector } from './trail-projector.js';

/** Each case on a bus of its own: a projection made by one case would leave the next nothing to fold. */
const disposers: Array<() => Promise<void>> = [];
async function freshBus(): Promise<Bus> {
  const bus = await testBus('trail-projector');
  disposers.push(() => bus.dispose());
  return bus;
}
afterEach(async () => {
  for (const dispose of disposers.splice(0)) await dispose();
});

const object = (apiVersion: string, kind: string, name: string, spec: unknown) => ({
  apiVersion,
  kind,
  metadata: { name, namespace: 'default' },
  spec,
});

describe('TrailProjector', () => {
  it.each([
    ['listed from the store', false],
    ['read from informers', true],
  ])(
    "projects the workload a decision is about: a binding's resource, a cron aimed at its FederatedHPA, its conflict (autoscalers %s)",
    async (_, informed) => {
      const bus = await freshBus();
      const store = new ObjectStore(bus);
      await store.apply(object('apps/v1', 'Deployment', 'shop', { replicas: 2 }) as never);
      await store.apply(
        object('work.karmada.io/v1alpha2', 'ResourceBinding', 'shop-deployment', {
          resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'shop' },
        }) as never,
      );
      const fhpa = object('autoscaling.karmada.io/v1alpha1', 'FederatedHPA', 'shop', {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop' },
      });
      const cron = object('autoscaling.karmada.io/v1alpha1', 'CronFederatedHPA', 'shop-cron', {
        scaleTargetRef: { apiVersion: 'autoscaling.karmada.io/v1alpha1', kind: 'FederatedHPA', name: 'shop' },
      });
      await store.apply(fhpa as never);
      await store.apply(cron as never);
      const events = [
        cloudEvent({
          source: 'test',
          time: new Date(),
          type: 'BindingScheduled',
          kind: 'ResourceBinding',
          namespace: 'default',
          name: 'shop-deployment',
          data: { trigger: 'ReplicasChanged', clusters: [{ name: 'm1', replicas: 2 }] },
        }),
        cloudEvent({
          source: 'test',
          time: new Date(),
          type: 'CronRuleExecuted',
          kind: 'CronFederatedHPA',
          namespace: 'default',
          name: 'shop-cron',
          data: { ruleName: 'up', appliedMinReplicas: 4, target: 'FederatedHPA shop' },
        }),
        // an owner conflict on the cron: the workload of the FederatedHPA it is aimed at
        cloudEvent({
          source: 'test',
          time: new Date(),
          type: 'ReplicaOwnerConflict',
          kind: 'CronFederatedHPA',
          namespace: 'default',
          name: 'shop-cron',
          data: {
            conflicts: ['m1/default/shop-local'],
            statusPatch: {
              conditions: [{ type: 'ReplicaOwnerConflict', status: 'True', reason: 'ForeignMemberHPA', message: 'm1' }],
            },
          },
        }),
        // not a replica decision: never makes a projection
        cloudEvent({
          source: 'test',
          time: new Date(),
          type: 'WorkloadStatusReported',
          kind: 'ResourceBinding',
          name: 'x-deployment',
          data: {},
        }),
      ];
      for (const e of events) await publishEvent(bus, e);

      const registry = new Registry();
      const autoscalers = informed
        ? replicaWriterSpecs({ bus, informers: new Informers({ bus }), store, registry })
        : undefined;
      await autoscalers?.start();
      const projector = new TrailProjector({
        bus,
        objects: store,
        ...(autoscalers && { autoscalers }),
        delayMs: 60_000,
        projectAfterDecisions: 1,
      });
      for (const e of events) projector.noticed(e);
      await projector.flush();
      await projector.stop();
      autoscalers?.stop();
      if (autoscalers) {
        // One workload projected: each autoscaler kind of its namespace read once, from the caches.
        expect(await metricSum(registry, 'flotilla_spec_reads_total', { source: 'cache' })).toBe(3);
        expect(await metricSum(registry, 'flotilla_spec_reads_total', { source: 'store' })).toBe(0);
      }

      const shop = { kind: 'Deployment', namespace: 'default', name: 'shop' };
      const read = await readReplicaTrail(bus, shop, trailAddresses(shop, [fhpa, cron] as AutoscalerLike[]));
      expect(read.eventsRead).toBe(0);
      expect(read.entries.map((e) => [e.field, e.to, e.event])).toEqual([
        [{ kind: 'cluster', cluster: 'm1' }, 2, 'BindingScheduled'],
        [{ kind: 'autoscalerLimits', autoscaler: 'FederatedHPA shop' }, { minReplicas: 4 }, 'CronRuleExecuted'],
        [
          { kind: 'ownerConflict', autoscaler: 'CronFederatedHPA shop-cron' },
          { status: 'True', reason: 'ForeignMemberHPA' },
          'ReplicaOwnerConflict',
        ],
      ]);
      const keys: string[] = [];
      for await (const k of await bus.trails.keys()) keys.push(k);
      expect(keys.filter((k) => !k.startsWith('Deployment.default.shop'))).toEqual([]);
    },
  );

  it('projects nothing for a workload with fewer decisions than projectAfterDecisions: its reader folds them', async () => {
    const bus = await freshBus();
    const store = new ObjectStore(bus);
    await store.apply(object('apps/v1', 'Deployment', 'web', { replicas: 2 }) as never);
    const applied = (to: number) =>
      cloudEvent({
        source: 'test',
        time: new Date(),
        type: 'ReplicasApplied',
        kind: 'Deployment',
        namespace: 'default',
        name: 'web',
        data: { fromReplicas: to - 1, requestedReplicas: to, toReplicas: to, via: 'nats', outcome: 'configured' },
      });
    const projector = new TrailProjector({ bus, objects: store, delayMs: 60_000, projectAfterDecisions: 3 });
    const trailKeys = async () => {
      const keys: string[] = [];
      for await (const k of await bus.trails.keys()) keys.push(k);
      return keys;
    };
    const web = { kind: 'Deployment', namespace: 'default', name: 'web' };
    for (const to of [3, 4]) {
      const e = applied(to);
      await publishEvent(bus, e);
      projector.noticed(e);
    }
    await projector.flush();
    expect(await trailKeys()).toEqual([]);
    // The reader folds the two from the stream.
    const unprojected = await readReplicaTrail(bus, web, trailAddresses(web, []));
    expect(unprojected.entries.map((e) => e.to)).toEqual([3, 4]);
    const third = applied(5);
    await publishEvent(bus, third);
    projector.noticed(third);
    await projector.flush();
    await projector.stop();
    expect((await trailKeys()).filter((k) => k === 'Deployment.default.web')).toHaveLength(1);
    const read = await readReplicaTrail(bus, web, trailAddresses(web, []));
    expect(read.eventsRead).toBe(0);
    expect(read.entries.map((e) => e.to)).toEqual([3, 4, 5]);
  });

  it('refuses a negative delay and a threshold below one decision', async () => {
    const bus = await freshBus();
    expect(() => new TrailProjector({ bus, objects: new ObjectStore(bus), delayMs: -1 })).toThrow(/delayMs/);
    expect(() => new TrailProjector({ bus, objects: new ObjectStore(bus), projectAfterDecisions: 0 })).toThrow(
      /projectAfterDecisions/,
    );
  });
});
