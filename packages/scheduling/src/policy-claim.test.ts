import { describe, expect, it } from 'vitest';
import { claimingPolicy, policyClaim, preempts } from './policy-claim.js';
import type { PropagationPolicy, ResourceTemplate } from './types.js';

const template: ResourceTemplate = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'nginx', namespace: 'default', labels: { app: 'nginx' } },
  spec: { replicas: 2 },
};
const byName = [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'nginx' }];
const other = [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'other' }];

const pp = (
  name: string,
  priority = 0,
  preemption: 'Always' | 'Never' = 'Never',
  selectors = byName,
): PropagationPolicy => ({
  apiVersion: 'policy.karmada.io/v1alpha1',
  kind: 'PropagationPolicy',
  metadata: { name, namespace: 'default' },
  spec: { resourceSelectors: selectors, priority, preemption },
});
const cpp = (
  name: string,
  priority = 0,
  preemption: 'Always' | 'Never' = 'Never',
  selectors = byName,
): PropagationPolicy => ({
  ...pp(name, priority, preemption, selectors),
  kind: 'ClusterPropagationPolicy',
  metadata: { name },
});
const ppClaim = (name: string) =>
  policyClaim({ 'propagationpolicy.karmada.io/name': name, 'propagationpolicy.karmada.io/namespace': 'default' });
const cppClaim = (name: string) => policyClaim({ 'clusterpropagationpolicy.karmada.io/name': name });

describe('claimingPolicy', () => {
  it.each([
    { name: 'no claim: the best match', policies: [pp('low', 1), pp('high', 5)], claim: undefined, want: 'high' },
    {
      name: 'a new higher-priority policy without preemption leaves the claim alone',
      policies: [pp('old', 1), pp('new', 5)],
      claim: ppClaim('old'),
      want: 'old',
    },
    {
      name: 'a higher-priority policy with preemption Always takes over',
      policies: [pp('old', 1), pp('new', 5, 'Always')],
      claim: ppClaim('old'),
      want: 'new',
    },
    {
      name: 'preemption needs a strictly higher priority',
      policies: [pp('old', 5), pp('new', 5, 'Always')],
      claim: ppClaim('old'),
      want: 'old',
    },
    {
      name: 'a lower-priority Always policy cannot preempt',
      policies: [pp('old', 5), pp('new', 1, 'Always')],
      claim: ppClaim('old'),
      want: 'old',
    },
    {
      name: 'a PropagationPolicy with Always preempts a ClusterPropagationPolicy whatever the priorities',
      policies: [cpp('cluster', 9), pp('ns', 0, 'Always')],
      claim: cppClaim('cluster'),
      want: 'ns',
    },
    {
      name: 'a PropagationPolicy without preemption does not',
      policies: [cpp('cluster', 9), pp('ns', 10)],
      claim: cppClaim('cluster'),
      want: 'cluster',
    },
    {
      name: 'a ClusterPropagationPolicy never preempts a PropagationPolicy',
      policies: [pp('ns', 0), cpp('cluster', 9, 'Always')],
      claim: ppClaim('ns'),
      want: 'ns',
    },
    {
      name: 'a ClusterPropagationPolicy preempts a lower one',
      policies: [cpp('a', 1), cpp('b', 2, 'Always')],
      claim: cppClaim('a'),
      want: 'b',
    },
    {
      name: 'the claiming policy is gone: the best match',
      policies: [pp('low', 1), pp('high', 5)],
      claim: ppClaim('deleted'),
      want: 'high',
    },
    {
      name: 'the claiming policy no longer selects the template: the best match',
      policies: [pp('old', 9, 'Never', other), pp('new', 1)],
      claim: ppClaim('old'),
      want: 'new',
    },
    {
      name: 'a claim by a PropagationPolicy of another namespace is no claim',
      policies: [pp('old', 1), pp('new', 5)],
      claim: policyClaim({
        'propagationpolicy.karmada.io/name': 'old',
        'propagationpolicy.karmada.io/namespace': 'elsewhere',
      }),
      want: 'new',
    },
    {
      name: 'a PropagationPolicy of another namespace does not hold the template, even if it selects it',
      policies: [{ ...pp('old', 9), metadata: { name: 'old', namespace: 'elsewhere' } }, pp('new', 1)],
      claim: policyClaim({
        'propagationpolicy.karmada.io/name': 'old',
        'propagationpolicy.karmada.io/namespace': 'elsewhere',
      }),
      want: 'new',
    },
  ])('$name', ({ policies, claim, want }) => {
    expect(claimingPolicy(template, policies, claim)?.metadata.name).toBe(want);
  });

  it('reads the claim of a PropagationPolicy before that of a ClusterPropagationPolicy', () => {
    expect(
      policyClaim({
        'clusterpropagationpolicy.karmada.io/name': 'c',
        'propagationpolicy.karmada.io/name': 'p',
        'propagationpolicy.karmada.io/namespace': 'default',
      }),
    ).toEqual({ kind: 'PropagationPolicy', namespace: 'default', name: 'p' });
    expect(policyClaim({ 'propagationpolicy.karmada.io/name': 'p' })).toBeUndefined();
  });

  it('preempts: only with Always', () => {
    expect(preempts(pp('a', 9, 'Never'), pp('b', 0))).toBe(false);
    expect(preempts(pp('a', 9, 'Always'), pp('b', 0))).toBe(true);
  });
});
