import { admit } from '@flotilla/api';
import { encodeJson, type Bus, type CloudEvent } from '@flotilla/bus';
import { testBus } from '@flotilla/bus/testing';
import { ObjectStore, StatusStore, type StoredObject } from '@flotilla/store';
import { eventually } from '@flotilla/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AffinitySchedulerController } from '../controller.js';

const GRACE_MS = 1500;
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
let bus: Bus & { dispose(): Promise<void> };
let store: ObjectStore;
const published: Array<{ at: number; event: CloudEvent }> = [];
const expiries = () => published.filter((p) => p.event.type.endsWith('ClusterStatusExpired'));

const renew = () =>
  bus.leases.put(
    'Cluster._.c1',
    encodeJson({ holderIdentity: 'member-agent/sim@test/1', renewTime: new Date().toISOString() }),
  );
const scheduler = () =>
  new AffinitySchedulerController({
    bus,
    store,
    publish: async (event) => {
      published.push({ at: Date.now(), event });
    },
    logger: silent,
    failoverGraceMs: 60_000,
    clusterMonitorGraceMs: GRACE_MS,
    resyncMs: 60_000,
  });

beforeAll(async () => {
  bus = await testBus('health');
  store = new ObjectStore(bus);
  await store.apply(
    admit({
      apiVersion: 'cluster.karmada.io/v1alpha1',
      kind: 'Cluster',
      metadata: { name: 'c1' },
      spec: {},
    }) as StoredObject,
  );
  await new StatusStore(bus).fold({ kind: 'Cluster', name: 'c1' }, 1, () => ({
    conditions: [{ type: 'Ready', status: 'True', reason: 'ClusterReady', lastTransitionTime: '2026-01-01T00:00:00Z' }],
  }));
  await renew();
});
afterAll(async () => {
  await bus?.dispose();
});

describe('cluster-health controller (in-process, real NATS)', () => {
  it('leaves a cluster whose lease is renewed alone, expires it once renewals stop, and a new leader gives it a full grace period', async () => {
    const first = scheduler();
    await first.start();
    try {
      // Renewed every 300 ms for twice the grace period: nothing expires.
      for (let i = 0; i < (2 * GRACE_MS) / 300; i++) {
        await new Promise((r) => setTimeout(r, 300));
        await renew();
      }
      expect(expiries()).toEqual([]);
      const lastRenewal = Date.now();
      const { at, event } = await eventually(() => expiries()[0], 3 * GRACE_MS, 'an expiry');
      expect(at - lastRenewal).toBeGreaterThanOrEqual(GRACE_MS - 100);
      expect(event.data).toMatchObject({
        statusPatch: {
          conditions: [
            {
              type: 'Ready',
              status: 'Unknown',
              reason: 'ClusterStatusUnknown',
              message: 'Cluster status controller stopped posting cluster status.',
            },
          ],
        },
        kubeEvent: { type: 'Warning', reason: 'ClusterStatusUnknown' },
      });
    } finally {
      await first.stop();
    }

    // A new leader: the lease is long stale and the stored status still says Ready (the expiry above was never folded
    // here), yet it waits a whole grace period from its own start before it expires the cluster.
    published.length = 0;
    const startedAt = Date.now();
    const second = scheduler();
    await second.start();
    try {
      const { at } = await eventually(() => expiries()[0], 3 * GRACE_MS, 'an expiry by the new leader');
      expect(at - startedAt).toBeGreaterThanOrEqual(GRACE_MS - 100);
    } finally {
      await second.stop();
    }
  }, 30_000);
});
