import { describe, expect, it } from 'vitest';
import { admissionWarnings, admit } from './admission.js';

const ref = (apiVersion: string, kind = 'Deployment') => ({ apiVersion, kind, name: 'shop' });
const cron = (scaleTargetRef: object) => ({
  apiVersion: 'autoscaling.karmada.io/v1alpha1',
  kind: 'CronFederatedHPA',
  metadata: { name: 'c' },
  spec: { scaleTargetRef, rules: [{ name: 'up', schedule: '0 8 * * *', targetReplicas: 2 }] },
});
const fhpa = (scaleTargetRef: object) => ({
  apiVersion: 'autoscaling.karmada.io/v1alpha1',
  kind: 'FederatedHPA',
  metadata: { name: 'f' },
  spec: { scaleTargetRef, maxReplicas: 10 },
});
const ehpa = (scaleTargetRef: object) => ({
  apiVersion: 'autoscaling.crane.io/v1alpha1',
  kind: 'EffectiveHorizontalPodAutoscaler',
  metadata: { name: 'e' },
  spec: { scaleTargetRef, minReplicas: 1, maxReplicas: 10 },
});
const policy = (...resourceSelectors: object[]) => ({
  apiVersion: 'policy.karmada.io/v1alpha1',
  kind: 'PropagationPolicy',
  metadata: { name: 'p' },
  spec: { resourceSelectors, placement: { clusterAffinity: { clusterNames: ['member1'] } } },
});
const unknown = (at: string, apiVersion: string, kind = 'Deployment', served = 'apps/v1') =>
  `${at}.apiVersion: unknown apiVersion "${apiVersion}" for kind ${kind} (served as ${served}); accepted as written`;

describe('admissionWarnings', () => {
  it.each([
    ["seed 000's CronFederatedHPA sample (app/v1)", cron(ref('app/v1')), [unknown('spec.scaleTargetRef', 'app/v1')]],
    ['a CronFederatedHPA on apps/v1', cron(ref('apps/v1')), []],
    ['a kind Flotilla does not know (any kind is a template)', cron(ref('example.com/v1', 'Rollout')), []],
    ['a FederatedHPA', fhpa(ref('apps/v2')), [unknown('spec.scaleTargetRef', 'apps/v2')]],
    ['an EffectiveHPA', ehpa(ref('app/v1', 'StatefulSet')), [unknown('spec.scaleTargetRef', 'app/v1', 'StatefulSet')]],
    [
      "a policy's second selector",
      policy({ apiVersion: 'apps/v1', kind: 'Deployment' }, { apiVersion: 'app/v1', kind: 'Deployment' }),
      [unknown('spec.resourceSelectors[1]', 'app/v1')],
    ],
  ])('%s', (_name, input, expected) => {
    // Accepted as Karmada accepts it: admission passes, and only warns.
    expect(admissionWarnings(admit(input))).toEqual(expected);
  });
});
