import { describe, expect, it } from 'vitest';
import { scaleTargetConflict } from './scale-target-conflict.js';

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
