import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Bus } from '@flotilla/bus';
import { testBus } from '@flotilla/bus/testing';
import { Informers, ObjectStore } from '@flotilla/store';
import { eventually } from '@flotilla/testkit';
import { KeyRouter } from './key-router.js';

const cluster = (name: string, label: string) => ({
  apiVersion: 'cluster.karmada.io/v1alpha1',
  kind: 'Cluster',
  metadata: { name, labels: { l: label } },
  spec: {},
});

describe('KeyRouter against real NATS', () => {
  let bus: Bus & { dispose(): Promise<void> };
  beforeEach(async () => {
    bus = await testBus('key-router');
  });
  afterEach(async () => {
    await bus.dispose();
  });

  it("a key's watch source hands on that key's changes only, and lists that key alone", async () => {
    const store = new ObjectStore(bus);
    await store.apply(cluster('m1', 'a'));
    await store.apply(cluster('m2', 'a'));
    const informer = new Informers({ bus }).objects('Cluster');
    const router = KeyRouter.of(informer);
    const seen = { m1: [] as string[], m2: [] as string[] };
    const subs = (['m1', 'm2'] as const).map((name) =>
      router.source(`Cluster._.${name}`).subscribe((e) => void seen[name].push(`${e.type} ${e.key}`)),
    );
    await Promise.all(subs.map((s) => s.synced));
    expect([...router.source('Cluster._.m1').keys()]).toEqual(['Cluster._.m1']);
    expect([...router.source('Cluster._.m3').keys()]).toEqual([]);
    expect(router.source('Cluster._.m3').size).toBe(2);
    const before = { m1: seen.m1.length, m2: seen.m2.length };
    await store.apply(cluster('m2', 'b'));
    await eventually(() => (seen.m2.length > before.m2 ? true : undefined), 10_000, "m2's change");
    await store.delete({ kind: 'Cluster', name: 'm1' });
    await eventually(() => (seen.m1.includes('delete Cluster._.m1') ? true : undefined), 10_000, "m1's delete");
    expect(seen.m1.every((e) => e.endsWith('Cluster._.m1'))).toBe(true);
    expect(seen.m2.every((e) => e.endsWith('Cluster._.m2'))).toBe(true);
    for (const s of subs) s.unsubscribe();
  });
});
