import { describe, expect, it } from 'vitest';
import {
  replicaOwnerConflict,
  replicaWriters,
  retainAutoscaledReplicas,
  scaleTargetConflict,
} from './scale-target-conflict.js';

const scaler = (kind: string, name: string, target: string, apiVersion = 'apps/v1') => ({
  kind,
  metadata: { name, namespace: 'default' },
  spec: { scaleTargetRef: { apiVersion, kind: 'Deployment', name: target } },
});

describe('one autoscaler per workload (FederatedHPA, EffectiveHPA)', () => {
  it.each([
    [
      'a second FederatedHPA on the workload',
      scaler('FederatedHPA', 'b', 'shop'),
      [scaler('FederatedHPA', 'a', 'shop')],
      'FederatedHPA default/a',
    ],
    [
      'a FederatedHPA on a workload an EffectiveHPA scales',
      scaler('FederatedHPA', 'b', 'shop'),
      [scaler('EffectiveHorizontalPodAutoscaler', 'shop', 'shop')],
      'EffectiveHorizontalPodAutoscaler default/shop',
    ],
    [
      'an EffectiveHPA on a workload a FederatedHPA scales',
      scaler('EffectiveHorizontalPodAutoscaler', 'e', 'shop'),
      [scaler('FederatedHPA', 'a', 'shop')],
      'FederatedHPA default/a',
    ],
  ])('refuses %s, naming the other', (_name, object, others, named) => {
    const err = scaleTargetConflict(object, others);
    expect(err?.field).toBe('spec.scaleTargetRef');
    expect(err?.message).toContain(`already scaled by ${named}`);
  });

  it.each([
    ['the object itself (an update)', scaler('FederatedHPA', 'a', 'shop'), [scaler('FederatedHPA', 'a', 'shop')]],
    ['another workload', scaler('FederatedHPA', 'b', 'cart'), [scaler('FederatedHPA', 'a', 'shop')]],
    [
      'the same name in another API group',
      scaler('FederatedHPA', 'b', 'shop', 'example.io/v1'),
      [scaler('FederatedHPA', 'a', 'shop')],
    ],
    [
      'an EffectiveHPA of the same name on another workload',
      scaler('FederatedHPA', 'a', 'cart'),
      [scaler('EffectiveHorizontalPodAutoscaler', 'a', 'shop')],
    ],
  ])('admits %s', (_name, object, others) => {
    expect(scaleTargetConflict(object, others)).toBeUndefined();
  });
});

describe('owner conflicts: two writers of one replica field', () => {
  const cron = (name: string, kind: string, target: string) => ({
    kind: 'CronFederatedHPA',
    metadata: { name, namespace: 'default' },
    spec: {
      scaleTargetRef: {
        apiVersion: kind === 'FederatedHPA' ? 'autoscaling.karmada.io/v1alpha1' : 'apps/v1',
        kind,
        name: target,
      },
    },
  });

  it('refuses a CronFederatedHPA aimed at a workload a FederatedHPA scales, and says to aim at the FederatedHPA', () => {
    expect(replicaOwnerConflict(cron('c', 'Deployment', 'shop'), [scaler('FederatedHPA', 'shop-hpa', 'shop')])).toEqual(
      {
        field: 'spec.scaleTargetRef',
        message:
          'Invalid value: "Deployment/shop": its spec.replicas is written by FederatedHPA default/shop-hpa; a CronFederatedHPA setting it too would fight it: aim it at the FederatedHPA instead (scaleTargetRef: {apiVersion: autoscaling.karmada.io/v1alpha1, kind: FederatedHPA, name: shop-hpa}), whose min/max it may set',
      },
    );
  });

  it("refuses a CronFederatedHPA aimed at a workload an EffectiveHPA scales, and points at the EffectiveHPA's crons", () => {
    expect(
      replicaOwnerConflict(cron('c', 'Deployment', 'shop'), [scaler('EffectiveHorizontalPodAutoscaler', 'e', 'shop')])
        ?.message,
    ).toContain("put the window in the EffectiveHPA's spec.crons instead");
  });

  it('refuses a FederatedHPA on a workload a CronFederatedHPA already scales, naming it', () => {
    expect(
      replicaOwnerConflict(scaler('FederatedHPA', 'h', 'shop'), [cron('nightly', 'Deployment', 'shop')])?.message,
    ).toBe(
      'Invalid value: "Deployment/shop": its spec.replicas is already set by CronFederatedHPA default/nightly; the two would fight over it: aim that CronFederatedHPA at this FederatedHPA (its min/max) first',
    );
  });

  it.each([
    [
      'a CronFederatedHPA aimed at the FederatedHPA',
      cron('c', 'FederatedHPA', 'shop-hpa'),
      [scaler('FederatedHPA', 'shop-hpa', 'shop')],
    ],
    [
      'a CronFederatedHPA on a workload nobody else scales',
      cron('c', 'Deployment', 'shop'),
      [scaler('FederatedHPA', 'h', 'other')],
    ],
    [
      'a CronFederatedHPA beside an EffectiveHPA in Preview (it only reports)',
      cron('c', 'Deployment', 'shop'),
      [
        {
          ...scaler('EffectiveHorizontalPodAutoscaler', 'e', 'shop'),
          spec: {
            scaleStrategy: 'Preview',
            scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop' },
          },
        },
      ],
    ],
    [
      'a FederatedHPA beside a CronFederatedHPA aimed at it',
      scaler('FederatedHPA', 'shop-hpa', 'shop'),
      [cron('c', 'FederatedHPA', 'shop-hpa')],
    ],
  ])('admits %s', (_title, object, others) => {
    expect(replicaOwnerConflict(object, others)).toBeUndefined();
  });
});

describe("retainAutoscaledReplicas: an apply keeps the autoscaler's count (Karmada's retain)", () => {
  const deploy = (replicas: number) => ({
    kind: 'Deployment',
    metadata: { name: 'shop' },
    spec: { replicas, paused: false },
  });
  const hpa = scaler('FederatedHPA', 'shop-hpa', 'shop');

  it.each<
    [
      title: string,
      applied: number,
      stored: number | undefined,
      writers: ReturnType<typeof scaler>[],
      stays: number,
      by?: string,
    ]
  >([
    ['autoscaled: the stored 8 stays, the apply asked for 2', 2, 8, [hpa], 8, 'FederatedHPA default/shop-hpa'],
    ['autoscaled, same count: nothing to keep', 8, 8, [hpa], 8],
    ['not autoscaled: the apply wins', 2, 8, [], 2],
    ['a new workload takes what was applied', 2, undefined, [hpa], 2],
  ])('%s', (_title, applied, stored, writers, stays, by) => {
    const r = retainAutoscaledReplicas(deploy(applied), stored === undefined ? undefined : deploy(stored), writers);
    expect(r.object.spec).toEqual({ replicas: stays, paused: false });
    expect(r.retainedBy).toBe(by);
    expect([r.fromReplicas, r.requestedReplicas, r.toReplicas]).toEqual([stored ?? null, applied, stays]);
  });

  it('counts only the autoscalers that write: an EffectiveHPA in Preview does not', () => {
    const preview = {
      ...scaler('EffectiveHorizontalPodAutoscaler', 'e', 'shop'),
      spec: { scaleStrategy: 'Preview', scaleTargetRef: { kind: 'Deployment', name: 'shop' } },
    };
    expect(replicaWriters(deploy(1), [preview, hpa, scaler('FederatedHPA', 'x', 'other')])).toEqual([hpa]);
  });
});
