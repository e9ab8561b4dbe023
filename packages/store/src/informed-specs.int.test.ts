import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectBus, type Bus } from '@flotilla/bus';
import { testBus } from '@flotilla/bus/testing';
import { metricSum, NATS_URL } from '@flotilla/testkit';
import { Registry } from 'prom-client';
import { InformedSpecs } from './informed-specs.js';
import { Informers } from './informers.js';
import { ObjectStore } from './object-store.js';
import type { StoredObject } from './object.js';

// Two processes on one bucket, as two gateway replicas: `other` writes, `specs` (this one's cache) must answer with
// what `other` wrote a moment ago, without waiting for its watch by luck.
let bus: Bus & { dispose(): Promise<void> };
let otherBus: Bus;
let store: ObjectStore;
let other: ObjectStore;
beforeAll(async () => {
  bus = await testBus('informed-specs');
  otherBus = await connectBus({ url: NATS_URL, prefix: bus.names.prefix, name: 'other-replica' });
  store = new ObjectStore(bus);
  other = new ObjectStore(otherBus);
});
afterAll(async () => {
  await otherBus?.close();
  await bus?.dispose();
});

const fhpa = (name: string, namespace: string, target: string): StoredObject => ({
  apiVersion: 'autoscaling.karmada.io/v1alpha1',
  kind: 'FederatedHPA',
  metadata: { name, namespace },
  spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target }, minReplicas: 1, maxReplicas: 4 },
});
const targetOnly = {
  name: 'targetOnly',
  project: (o: StoredObject): StoredObject => ({
    apiVersion: o.apiVersion,
    kind: o.kind,
    metadata: { name: o.metadata.name, namespace: o.metadata.namespace },
    spec: { scaleTargetRef: (o.spec as { scaleTargetRef: unknown }).scaleTargetRef },
  }),
};
const names = (l: StoredObject[]) => l.map((o) => `${o.metadata.namespace}/${o.metadata.name}`);

function informedSpecs(registry: Registry, catchUpMs = 5000) {
  return new InformedSpecs({
    bus,
    informers: new Informers({ bus }),
    store,
    kinds: ['FederatedHPA'],
    projection: targetOnly,
    catchUpMs,
    registry,
  });
}

describe('InformedSpecs', () => {
  it("answers from its cache what the store holds, in the store's order, projected", async () => {
    await other.apply(fhpa('b', 'ns-a', 'web'));
    await other.apply(fhpa('a', 'ns-a', 'api'));
    await other.apply(fhpa('c', 'ns-b', 'web'));
    const registry = new Registry();
    const specs = informedSpecs(registry);
    await specs.start();
    try {
      expect(names(await specs.listSpecs('FederatedHPA', 'ns-a'))).toEqual(['ns-a/a', 'ns-a/b']);
      expect(names(await specs.listSpecs('FederatedHPA'))).toEqual(names(await store.listSpecs('FederatedHPA')));
      expect(await specs.listSpecs('FederatedHPA', 'ns-none')).toEqual([]);
      const [a] = await specs.listSpecs('FederatedHPA', 'ns-a');
      expect(a!.spec).toEqual({ scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api' } });
      expect(await metricSum(registry, 'flotilla_spec_reads_total', { source: 'cache' })).toBe(4);
      expect(await metricSum(registry, 'flotilla_spec_reads_total', { source: 'store' })).toBe(0);
      // A kind it does not cache is the store's answer.
      expect(await specs.listSpecs('EffectiveHorizontalPodAutoscaler', 'ns-a')).toEqual([]);
      expect(await metricSum(registry, 'flotilla_spec_reads_total', { source: 'store' })).toBe(1);
    } finally {
      specs.stop();
    }
  });

  it('holds what another process wrote or deleted a moment before each read', async () => {
    const specs = informedSpecs(new Registry());
    await specs.start();
    try {
      for (let i = 0; i < 20; i++) {
        const written = await other.apply(fhpa(`new-${i}`, 'ns-moment', `w-${i}`));
        expect(names(await specs.listSpecs('FederatedHPA', 'ns-moment'))).toContain(`ns-moment/new-${i}`);
        await other.delete(
          { kind: 'FederatedHPA', namespace: 'ns-moment', name: `new-${i}` },
          written.object.metadata.resourceVersion,
        );
        expect(names(await specs.listSpecs('FederatedHPA', 'ns-moment'))).not.toContain(`ns-moment/new-${i}`);
      }
    } finally {
      specs.stop();
    }
  });

  it('reads the store while its cache cannot be trusted: before its first list, and after it stopped', async () => {
    const registry = new Registry();
    const specs = informedSpecs(registry);
    // Not started: nothing follows the bucket.
    expect(names(await specs.listSpecs('FederatedHPA', 'ns-a'))).toEqual(['ns-a/a', 'ns-a/b']);
    await specs.start();
    specs.stop();
    await other.apply(fhpa('d', 'ns-a', 'db'));
    expect(names(await specs.listSpecs('FederatedHPA', 'ns-a'))).toEqual(['ns-a/a', 'ns-a/b', 'ns-a/d']);
    expect(await metricSum(registry, 'flotilla_spec_reads_total', { source: 'store' })).toBe(2);
    expect(await metricSum(registry, 'flotilla_spec_reads_total', { source: 'cache' })).toBe(0);
  });

  it('refuses a catch-up wait that is not a positive number', () => {
    expect(() => informedSpecs(new Registry(), 0)).toThrow(/catchUpMs must be a positive number, got 0/);
  });
});
