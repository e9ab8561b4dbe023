import { describe, expect, it } from 'vitest';
import { scaleEffect } from './effects.js';

const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop' };
const fhpa = { apiVersion: 'autoscaling.karmada.io/v1alpha1', kind: 'FederatedHPA', name: 'shop-fhpa' };

describe('scaleEffect', () => {
  it.each([
    [
      'workload scale up',
      deployment,
      { replicas: 2 },
      { replicas: 1000 },
      { replicas: 1000 },
      { appliedReplicas: 1000 },
      true,
    ],
    [
      'workload already there',
      deployment,
      { replicas: 1 },
      { replicas: 1 },
      { replicas: 1 },
      { appliedReplicas: 1 },
      false,
    ],
    [
      'workload without spec.replicas (scale from zero)',
      deployment,
      {},
      { replicas: 3 },
      { replicas: 3 },
      { appliedReplicas: 3 },
      true,
    ],
    [
      'FederatedHPA min within max',
      fhpa,
      { minReplicas: 1, maxReplicas: 10 },
      { minReplicas: 5 },
      { minReplicas: 5 },
      { appliedMinReplicas: 5 },
      true,
    ],
    [
      'FederatedHPA min and max together',
      fhpa,
      { minReplicas: 1, maxReplicas: 10 },
      { minReplicas: 1000, maxReplicas: 2000 },
      { minReplicas: 1000, maxReplicas: 2000 },
      { appliedMinReplicas: 1000, appliedMaxReplicas: 2000 },
      true,
    ],
    [
      'FederatedHPA max only',
      fhpa,
      { minReplicas: 2, maxReplicas: 10 },
      { maxReplicas: 4 },
      { maxReplicas: 4 },
      { appliedMaxReplicas: 4 },
      true,
    ],
    [
      'FederatedHPA min equal to max',
      fhpa,
      { minReplicas: 2, maxReplicas: 10 },
      { minReplicas: 10 },
      { minReplicas: 10 },
      { appliedMinReplicas: 10 },
      true,
    ],
  ])('%s', (_name, ref, spec, values, patch, applied, changed) => {
    expect(scaleEffect(ref, 'default', { spec }, values)).toEqual({ ok: true, patch, applied, changed });
  });

  it.each([
    [
      'a min raised above the current max (the proposal story with only targetMinReplicas)',
      { minReplicas: 1, maxReplicas: 10 },
      { minReplicas: 1000 },
      'cannot set FederatedHPA default/shop-fhpa spec.minReplicas to 1000: above its spec.maxReplicas 10 (a FederatedHPA needs maxReplicas >= minReplicas; set targetMaxReplicas in the same rule)',
    ],
    [
      'a max lowered below the current min',
      { minReplicas: 5, maxReplicas: 10 },
      { maxReplicas: 4 },
      'cannot set FederatedHPA default/shop-fhpa spec.maxReplicas to 4: below its spec.minReplicas 5 (a FederatedHPA needs maxReplicas >= minReplicas)',
    ],
    [
      'a max below the defaulted min of 1',
      { maxReplicas: 10 },
      { maxReplicas: 0 },
      'cannot set FederatedHPA default/shop-fhpa spec.maxReplicas to 0: below its spec.minReplicas 1 (a FederatedHPA needs maxReplicas >= minReplicas)',
    ],
    [
      'both set inconsistently (possible only across catch-up merges)',
      { minReplicas: 1, maxReplicas: 10 },
      { minReplicas: 9, maxReplicas: 3 },
      'cannot set FederatedHPA default/shop-fhpa spec.minReplicas to 9 and spec.maxReplicas to 3: a FederatedHPA needs maxReplicas >= minReplicas',
    ],
  ])('fails on %s', (_name, spec, values, message) => {
    expect(scaleEffect(fhpa, 'default', { spec }, values)).toEqual({ ok: false, reason: 'MinAboveMax', message });
  });

  it('fails when the target does not exist', () => {
    expect(scaleEffect(deployment, 'prod', undefined, { replicas: 1 })).toEqual({
      ok: false,
      reason: 'TargetNotFound',
      message: 'Deployment prod/shop not found',
    });
  });

  it('fails for an unsupported kind in the FederatedHPA API group', () => {
    const r = scaleEffect({ ...fhpa, kind: 'CronFederatedHPA' }, 'default', { spec: {} }, { minReplicas: 1 });
    expect(r).toMatchObject({ ok: false, reason: 'UnsupportedTarget' });
  });

  it('fails when the execution carries nothing for this kind of target', () => {
    expect(scaleEffect(deployment, 'default', { spec: { replicas: 1 } }, {})).toMatchObject({
      ok: false,
      reason: 'NothingToApply',
    });
    expect(scaleEffect(fhpa, 'default', { spec: { maxReplicas: 3 } }, { replicas: 2 })).toMatchObject({
      ok: false,
      reason: 'NothingToApply',
    });
  });
});
