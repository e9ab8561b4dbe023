import { FederatedHpaAnnotations, parseMemberLimits } from '@flotilla/api';
import { eventually } from '@flotilla/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FederatedHpaController } from './federated-hpa-controller.js';
import type { MoveReport } from './pass.js';
import {
  deployment,
  federatedHpa,
  harness,
  staticWeighted123,
  memberEntry,
  targetBinding,
  type Harness,
} from './testing/harness.js';

let h: Harness;
let controller: FederatedHpaController;
const moves: MoveReport[] = [];

const binding = (name: string) => h.store.get({ kind: 'ResourceBinding', namespace: 'default', name });
const clustersOf = async (name: string) =>
  ((await binding(name))?.spec as { clusters?: Array<{ name: string; replicas?: number }> } | undefined)?.clusters;
const limitsOf = async (fhpa: string) => {
  const b = await binding(`${fhpa}-horizontalpodautoscaler`);
  const limits = parseMemberLimits(b?.metadata.annotations);
  return limits ? Object.fromEntries(limits) : undefined;
};
const assigned = async (name: string) => (await h.events(name)).filter((e) => e.type === 'FederatedHPAAssigned');

/** The barrier before "nothing more happens": two sync passes begun after every write so far have ended. */
const twoPasses = async () => {
  await controller.nextPass();
  await controller.nextPass();
};

const allFeasible = { [FederatedHpaAnnotations.feasibleClusters]: 'member1,member2,member3' };

beforeAll(async () => {
  h = await harness('fhpa');
  await h.cluster('member1', true);
  await h.cluster('member2', true);
  await h.cluster('member3', true);
  controller = h.controller({ syncPeriodMs: 300, onMove: (r) => moves.push(r) });
  await controller.start();
});
afterAll(async () => {
  await h?.dispose();
});

describe('hpa-assigner, member HPAs (Karmada’s FederatedHPA proposal, real NATS and Redis)', () => {
  it('StaticWeighted 1:2:3: member HPAs get their shares, the target binding its clusters; a repeat writes nothing', async () => {
    await h.apply(deployment('shop', 3));
    await h.apply(
      targetBinding(
        'shop',
        [
          { name: 'member1', replicas: 1 },
          { name: 'member2', replicas: 1 },
          { name: 'member3', replicas: 1 },
        ],
        allFeasible,
      ),
    );
    await h.apply(
      federatedHpa('shop', {
        minReplicas: 3,
        maxReplicas: 12,
        federatedHPAAssignment: staticWeighted123,
      }),
    );
    expect(await eventually(() => limitsOf('shop'), 10_000, 'member limits')).toEqual({
      member1: { minReplicas: 1, maxReplicas: 2 },
      member2: { minReplicas: 1, maxReplicas: 4 },
      member3: { minReplicas: 1, maxReplicas: 6 },
    });
    await controller.nextPass();
    const target = await binding('shop-deployment');
    expect(target?.metadata.annotations?.[FederatedHpaAnnotations.owner]).toBe('shop');
    const hpa = await h.store.get({ kind: 'HorizontalPodAutoscaler', namespace: 'default', name: 'shop' });
    expect(hpa?.spec).toMatchObject({
      scaleTargetRef: { kind: 'Deployment', name: 'shop' },
      minReplicas: 3,
      maxReplicas: 12,
    });
    expect(hpa?.metadata.annotations?.[FederatedHpaAnnotations.owner]).toBe('shop');
    expect((await binding('shop-horizontalpodautoscaler'))?.spec).toMatchObject({
      resource: { kind: 'HorizontalPodAutoscaler', name: 'shop' },
      clusters: [{ name: 'member1' }, { name: 'member2' }, { name: 'member3' }],
    });
    expect(await clustersOf('shop-deployment')).toEqual([
      { name: 'member1', replicas: 1 },
      { name: 'member2', replicas: 1 },
      { name: 'member3', replicas: 1 },
    ]);
    const first = await eventually(
      async () => ((await assigned('shop')).length ? assigned('shop') : undefined),
      5000,
      'event',
    );
    expect(first).toHaveLength(1);
    expect(first[0]!.data.reason).toBe('Initial');
    // two sync passes later (each over caches that hold every write before it): still one assignment
    await twoPasses();
    expect(await assigned('shop')).toHaveLength(1);
    const status = await h.status('shop');
    expect(status.assignments).toEqual([
      { cluster: 'member1', minReplicas: 1, maxReplicas: 2, currentReplicas: 0, desiredReplicas: 0 },
      { cluster: 'member2', minReplicas: 1, maxReplicas: 4, currentReplicas: 0, desiredReplicas: 0 },
      { cluster: 'member3', minReplicas: 1, maxReplicas: 6, currentReplicas: 0, desiredReplicas: 0 },
    ]);
    expect((status.lastAssignment as { reason: string }).reason).toBe('Initial');
  });

  it('member clusters report: status shows their replicas; a failed cluster’s share moves to the others', async () => {
    await h.reportStatus('ResourceBinding', 'default', 'shop-deployment', {
      aggregatedStatus: [
        memberEntry('member1', 2, 2, 0, { hpa: { currentReplicas: 2, desiredReplicas: 2 } }),
        memberEntry('member2', 3, 3),
        memberEntry('member3', 5, 5),
      ],
    });
    await eventually(
      async () => {
        const s = await h.status('shop');
        return (s.assignments as Array<{ currentReplicas: number }> | undefined)?.[2]?.currentReplicas === 5
          ? s
          : undefined;
      },
      5000,
      'observed replicas',
    );
    await h.cluster('member3', false);
    expect(
      await eventually(
        async () => ((await limitsOf('shop'))?.member3 ? undefined : limitsOf('shop')),
        10_000,
        'failover',
      ),
    ).toEqual({
      member1: { minReplicas: 1, maxReplicas: 4 },
      member2: { minReplicas: 2, maxReplicas: 8 },
    });
    const events = await assigned('shop');
    expect(events.at(-1)!.data.reason).toBe('Failover');
    expect(await clustersOf('shop-deployment')).toEqual([
      { name: 'member1', replicas: 2 },
      { name: 'member2', replicas: 3 },
    ]);
    await h.cluster('member3', true);
    await eventually(async () => ((await limitsOf('shop'))?.member3 ? true : undefined), 10_000, 'member3 back');
    expect((await assigned('shop')).at(-1)!.data.reason).toBe('Reassigned');
  });

  it('waits for the scheduler to hand the binding over: no assignment over the clusters it scheduled for itself', async () => {
    await h.apply(deployment('handover', 2));
    // scheduled by the affinity scheduler for itself (Aggregated: all in one cluster), before any FederatedHPA
    await h.apply(targetBinding('handover', [{ name: 'member2', replicas: 2 }]));
    await h.apply(
      federatedHpa('handover', {
        minReplicas: 2,
        maxReplicas: 10,
        federatedHPAAssignment: {
          federatedHPAAssignmentType: 'Prioritized',
          clusterAutoscalingPreference: [
            { targetCluster: { clusterNames: ['member1'] }, priority: 3 },
            { targetCluster: { clusterNames: ['member2'] }, priority: 2 },
          ],
        },
      }),
    );
    await eventually(
      async () =>
        (await binding('handover-deployment'))?.metadata.annotations?.[FederatedHpaAnnotations.owner] === 'handover'
          ? true
          : undefined,
      10_000,
      'the binding marked as owned',
    );
    // two sync passes later: without the feasible clusters nothing is divided
    await twoPasses();
    expect(await assigned('handover')).toEqual([]);
    expect(await limitsOf('handover')).toBeUndefined();
    // the scheduler's hand-off: the first assignment goes to the most preferred feasible cluster, once
    await h.store.update({ kind: 'ResourceBinding', namespace: 'default', name: 'handover-deployment' }, (cur) => ({
      ...cur,
      metadata: { ...cur.metadata, annotations: { ...cur.metadata.annotations, ...allFeasible } },
    }));
    expect(await eventually(() => limitsOf('handover'), 10_000, 'member limits')).toEqual({
      member1: { minReplicas: 2, maxReplicas: 10 },
    });
    await twoPasses();
    expect((await assigned('handover')).map((e) => e.data.reason)).toEqual(['Initial']);
  });

  it('Prioritized: pods pending past autoscaleMultiClusterDelay move the free max to the next cluster (BullMQ delay)', async () => {
    await h.apply(deployment('burst', 2));
    await h.apply(
      targetBinding('burst', [{ name: 'member1', replicas: 2 }], {
        ...allFeasible,
        [FederatedHpaAnnotations.owner]: 'burst',
      }),
    );
    await h.apply(
      federatedHpa('burst', {
        minReplicas: 2,
        maxReplicas: 10,
        autoscaleMultiClusterDelay: 1,
        federatedHPAAssignment: {
          federatedHPAAssignmentType: 'Prioritized',
          clusterAutoscalingPreference: [
            { targetCluster: { clusterNames: ['member1'] }, priority: 3 },
            { targetCluster: { clusterNames: ['member2'] }, priority: 2 },
            { targetCluster: { clusterNames: ['member3'] }, priority: 1 },
          ],
        },
      }),
    );
    expect(await eventually(() => limitsOf('burst'), 10_000, 'member limits')).toEqual({
      member1: { minReplicas: 2, maxReplicas: 10 },
    });
    // member1's HPA scaled to its max but only 4 pods fit
    const pendingAt = Date.now();
    await h.reportStatus('ResourceBinding', 'default', 'burst-deployment', {
      aggregatedStatus: [memberEntry('member1', 10, 4, 6)],
    });
    const after = await eventually(
      async () => ((await limitsOf('burst'))?.member2 ? limitsOf('burst') : undefined),
      10_000,
      'move',
    );
    const movedAt = Date.now();
    await controller.nextPass();
    expect(after).toEqual({ member1: { minReplicas: 2, maxReplicas: 4 }, member2: { minReplicas: 1, maxReplicas: 6 } });
    expect(movedAt - pendingAt).toBeGreaterThanOrEqual(1000);
    expect(await clustersOf('burst-deployment')).toEqual([
      { name: 'member1', replicas: 4 },
      { name: 'member2', replicas: 1 },
    ]);
    const events = await assigned('burst');
    expect(events.at(-1)!.data).toMatchObject({
      reason: 'ScaledUpAcross',
      moves: [{ from: 'member1', to: 'member2', replicas: 6 }],
    });
    const move = moves.find((m) => m.key.endsWith('burst'))!;
    expect(move.dueAtMs).toBeDefined();
    expect(move.appliedAtMs - move.dueAtMs!).toBeLessThan(1000);
    // the pods scheduled: the delay job is gone, and nothing moves again
    await h.reportStatus('ResourceBinding', 'default', 'burst-deployment', {
      aggregatedStatus: [memberEntry('member1', 4, 4), memberEntry('member2', 1, 1)],
    });
    await twoPasses();
    expect(await assigned('burst')).toHaveLength(events.length);
  });

  it('Prioritized scale-down order: the preferred cluster is held while the less preferred one scales down', async () => {
    await h.reportStatus('ResourceBinding', 'default', 'burst-deployment', {
      aggregatedStatus: [memberEntry('member1', 4, 4), memberEntry('member2', 5, 5)],
    });
    const held = await eventually(
      async () =>
        (await limitsOf('burst'))?.member1?.minReplicas === 4 ? binding('burst-horizontalpodautoscaler') : undefined,
      10_000,
      'member1 held',
    );
    expect((await assigned('burst')).at(-1)!.data.reason).toBe('ScaledDownByPriority');
    // The assigned min of the held cluster is recorded in the FederatedHPA's status, not on the binding.
    expect((await h.status('burst')).assignmentRecord).toMatchObject({ pinnedMins: { member1: 2 } });
    expect(held!.metadata.annotations![FederatedHpaAnnotations.pinnedMins]).toBeUndefined();
    // member2 is down to its min: member1 is released to its assigned min
    await h.reportStatus('ResourceBinding', 'default', 'burst-deployment', {
      aggregatedStatus: [memberEntry('member1', 4, 4), memberEntry('member2', 1, 1)],
    });
    const released = await eventually(
      async () =>
        (await limitsOf('burst'))?.member1?.minReplicas === 2 ? binding('burst-horizontalpodautoscaler') : undefined,
      10_000,
      'member1 released',
    );
    expect(released!.metadata.annotations![FederatedHpaAnnotations.pinnedMins]).toBeUndefined();
    const record = await eventually(
      async () => {
        const r = (await h.status('burst')).assignmentRecord as { pinnedMins?: unknown } | undefined;
        return r && r.pinnedMins === undefined ? r : undefined;
      },
      10_000,
      'the hold released in status',
    );
    expect(record).toMatchObject({ basis: expect.any(String) });
    expect(await limitsOf('burst')).toEqual({
      member1: { minReplicas: 2, maxReplicas: 4 },
      member2: { minReplicas: 1, maxReplicas: 6 },
    });
  });

  it('a CronFederatedHPA raising the FederatedHPA’s min (a spec change) is followed', async () => {
    const fhpa = await h.store.get({ kind: 'FederatedHPA', namespace: 'default', name: 'shop' });
    await h.store.update({ kind: 'FederatedHPA', namespace: 'default', name: 'shop' }, (cur) => ({
      ...cur,
      spec: { ...(cur.spec as object), minReplicas: 6 },
    }));
    expect(fhpa).toBeDefined();
    const limits = await eventually(
      async () => {
        const l = await limitsOf('shop');
        return l && l.member3?.minReplicas === 3 ? l : undefined;
      },
      10_000,
      'min follows',
    );
    expect(Object.values(limits).map((l) => l.minReplicas)).toEqual([1, 2, 3]);
    const hpa = await h.store.get({ kind: 'HorizontalPodAutoscaler', namespace: 'default', name: 'shop' });
    expect((hpa?.spec as { minReplicas?: number } | undefined)?.minReplicas).toBe(6);
  });

  it("a new leader reads the previous assignments from the FederatedHPAs' status: it assigns nothing again", async () => {
    await twoPasses();
    await controller.stop();
    const names = (await h.store.list('FederatedHPA', 'default')).map((f) => f.metadata.name!);
    const before = new Map<string, number>();
    for (const name of names) {
      before.set(name, (await assigned(name)).length);
      // What the status writer folds from the events (this harness runs none).
      await h.reportStatus('FederatedHPA', 'default', name, await h.status(name));
    }
    controller = h.controller({ syncPeriodMs: 300, onMove: (r) => moves.push(r) });
    await controller.start();
    await twoPasses();
    for (const name of names) expect([name, (await assigned(name)).length]).toEqual([name, before.get(name)]);
  });
});

describe('hpa-assigner, a FederatedHPA deleted or switched to the shipped mode', () => {
  /** The target binding handed back to the scheduler: neither owner nor feasible clusters marked. */
  const released = async (name: string) => {
    const target = await eventually(
      async () => {
        const b = await binding(name);
        return b && b.metadata.annotations?.[FederatedHpaAnnotations.owner] === undefined ? b : undefined;
      },
      10_000,
      `${name} released`,
    );
    expect(target.metadata.annotations?.[FederatedHpaAnnotations.feasibleClusters]).toBeUndefined();
  };

  it('removes its member HPA and hands the target binding back to the scheduler', async () => {
    await h.store.delete({ kind: 'FederatedHPA', namespace: 'default', name: 'shop' });
    await eventually(
      async () => ((await binding('shop-horizontalpodautoscaler')) ? undefined : true),
      10_000,
      'member HPA binding gone',
    );
    const hpaGone = async () =>
      (await h.store.get({ kind: 'HorizontalPodAutoscaler', namespace: 'default', name: 'shop' })) ? undefined : true;
    expect(await eventually(hpaGone, 10_000, 'member HPA template gone')).toBe(true);
    await released('shop-deployment');
  });

  it('dropping federatedHPAAssignment from a FederatedHPA makes it the shipped one: no member HPA', async () => {
    expect(await limitsOf('burst')).toBeDefined();
    await h.store.update({ kind: 'FederatedHPA', namespace: 'default', name: 'burst' }, (cur) => {
      const { federatedHPAAssignment: _a, ...spec } = cur.spec as Record<string, unknown>;
      return { ...cur, spec };
    });
    await eventually(
      async () => ((await binding('burst-horizontalpodautoscaler')) ? undefined : true),
      10_000,
      'member HPA binding gone',
    );
    // The member HPA's binding goes first, the target's owner mark after it: wait for the release, not the first step.
    await released('burst-deployment');
  });
});

describe("hpa-assigner, Karmada's shipped FederatedHPA (no assignment)", () => {
  it('computes one replica count from the member clusters and writes the template', async () => {
    await h.apply(deployment('web', 2));
    await h.apply(
      targetBinding('web', [
        { name: 'member1', replicas: 1 },
        { name: 'member2', replicas: 1 },
      ]),
    );
    await h.reportStatus('ResourceBinding', 'default', 'web-deployment', {
      aggregatedStatus: [
        memberEntry('member1', 1, 1, 0, { cpuRequestMilli: 500 }),
        memberEntry('member2', 1, 1, 0, { cpuRequestMilli: 500 }),
      ],
    });
    await h.reportUsage('default', 'web-deployment', { member1: 1000, member2: 1000 });
    await h.apply(
      federatedHpa('web', {
        minReplicas: 1,
        maxReplicas: 10,
        metrics: [
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
        ],
      }),
    );
    // 200 % of a 50 % target over 2 pods asks for 8; the scale-up limit without behavior allows max(2 × 2, 4) = 4
    const replicas = await eventually(
      async () => {
        const d = await h.store.get({ kind: 'Deployment', namespace: 'default', name: 'web' });
        const r = (d?.spec as { replicas?: number } | undefined)?.replicas;
        return r !== 2 ? r : undefined;
      },
      10_000,
      'template scaled',
    );
    expect(replicas).toBe(4);
    const events = await h.events('web');
    const rescaled = events.find((e) => e.type === 'FederatedHPARescaled')!;
    const patch = rescaled.data.statusPatch as Record<string, unknown>;
    expect(patch).toMatchObject({ currentReplicas: 2, desiredReplicas: 4 });
    expect(patch.conditions).toContainEqual(
      expect.objectContaining({ type: 'ScalingLimited', status: 'True', reason: 'ScaleUpLimit' }),
    );
    // no member HPA for the shipped mode
    expect(await h.store.get({ kind: 'HorizontalPodAutoscaler', namespace: 'default', name: 'web' })).toBeUndefined();
  });
});
