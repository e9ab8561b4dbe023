import { AffinitySchedulerController } from '@flotilla/affinity-scheduler';
import { FederatedHpaAnnotations, parseMemberLimits } from '@flotilla/api';
import { publishEvent } from '@flotilla/bus';
import { eventually } from '@flotilla/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployment, federatedHpa, harness, staticWeighted123, silent, type Harness } from './testing/harness.js';

let h: Harness;
let scheduler: AffinitySchedulerController;

const binding = (name: string) => h.store.get({ kind: 'ResourceBinding', namespace: 'default', name });
const clustersOf = async (name: string) =>
  ((await binding(name))?.spec as { clusters?: Array<{ name: string; replicas?: number }> } | undefined)?.clusters;

beforeAll(async () => {
  h = await harness('fhpa-handoff');
  await h.cluster('member1', true);
  await h.cluster('member2', true);
  await h.cluster('member3', true);
  scheduler = new AffinitySchedulerController({
    bus: h.bus,
    store: h.store,
    publish: (e) => publishEvent(h.bus, e),
    logger: silent,
    failoverGraceMs: 200,
    resyncMs: 500,
  });
  await scheduler.start();
  await h.controller({ syncPeriodMs: 300 }).start();
});
afterAll(async () => {
  await scheduler?.stop();
  await h?.dispose();
});

describe('the affinity scheduler hands an owned binding to the hpa-assigner', () => {
  it('filters the clusters, leaves the replicas to the assignment, and fails over through its taints', async () => {
    await h.apply(deployment('cart', 6));
    await h.apply({
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: 'cart', namespace: 'default' },
      spec: {
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'cart' }],
        placement: {
          clusterAffinity: { clusterNames: ['member1', 'member2', 'member3'] },
          replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Aggregated' },
        },
      },
    });
    await eventually(
      async () => ((await clustersOf('cart-deployment'))?.length ? true : undefined),
      10_000,
      'scheduled',
    );
    await h.apply(
      federatedHpa('cart', {
        minReplicas: 3,
        maxReplicas: 12,
        federatedHPAAssignment: staticWeighted123,
      }),
    );
    const owned = await eventually(
      async () => {
        const b = await binding('cart-deployment');
        return b?.metadata.annotations?.[FederatedHpaAnnotations.feasibleClusters] ? b : undefined;
      },
      10_000,
      'feasible clusters',
    );
    expect(owned.metadata.annotations?.[FederatedHpaAnnotations.owner]).toBe('cart');
    expect(owned.metadata.annotations?.[FederatedHpaAnnotations.feasibleClusters]).toBe('member1,member2,member3');
    // The Aggregated division put all 6 on one cluster; the assignment clamps each into its member HPA's limits.
    await eventually(
      async () => {
        const c = await clustersOf('cart-deployment');
        return c?.length === 3 ? c : undefined;
      },
      10_000,
      'assigned clusters',
    );
    const limits = Object.fromEntries(
      parseMemberLimits((await binding('cart-horizontalpodautoscaler'))?.metadata.annotations)!,
    );
    expect(limits).toEqual({
      member1: { minReplicas: 1, maxReplicas: 2 },
      member2: { minReplicas: 1, maxReplicas: 4 },
      member3: { minReplicas: 1, maxReplicas: 6 },
    });
    const written = await clustersOf('cart-deployment');
    expect(
      written!.every((c) => c.replicas! <= limits[c.name]!.maxReplicas && c.replicas! >= limits[c.name]!.minReplicas),
    ).toBe(true);
    expect(written!.map((c) => c.name)).toEqual(['member1', 'member2', 'member3']);
    // two scheduler resync passes later (over caches that hold every write before them), it has not divided them again
    await scheduler.nextPass();
    await scheduler.nextPass();
    expect(await clustersOf('cart-deployment')).toEqual(written);
    // the member HPA's binding is the hpa-assigner's alone
    expect((await binding('cart-horizontalpodautoscaler'))?.spec).toMatchObject({
      clusters: [{ name: 'member1' }, { name: 'member2' }, { name: 'member3' }],
    });

    // member3 fails: the hpa-assigner moves its share at once; past the grace period the scheduler's NoExecute
    // taint evicts it from the feasible clusters too
    await h.cluster('member3', false);
    await eventually(
      async () => {
        const b = await binding('cart-deployment');
        return b?.metadata.annotations?.[FederatedHpaAnnotations.feasibleClusters] === 'member1,member2'
          ? true
          : undefined;
      },
      10_000,
      'evicted',
    );
    const after = Object.fromEntries(
      parseMemberLimits((await binding('cart-horizontalpodautoscaler'))?.metadata.annotations)!,
    );
    expect(after).toEqual({ member1: { minReplicas: 1, maxReplicas: 4 }, member2: { minReplicas: 2, maxReplicas: 8 } });
    expect((await clustersOf('cart-deployment'))!.map((c) => c.name)).toEqual(['member1', 'member2']);
  });
});
