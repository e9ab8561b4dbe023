import { describe, expect, it } from 'vitest';
import { UnknownKindError, WrongApiVersionError } from './errors.js';
import { kindOf, listKinds, registerKind, resolveKind } from './registry.js';

// kind, apiVersion, plural, short names, namespaced, strict
const KINDS: Array<[string, string, string, string[], boolean, boolean]> = [
  ['Cluster', 'cluster.karmada.io/v1alpha1', 'clusters', [], false, true],
  ['PropagationPolicy', 'policy.karmada.io/v1alpha1', 'propagationpolicies', ['pp'], true, true],
  ['ClusterPropagationPolicy', 'policy.karmada.io/v1alpha1', 'clusterpropagationpolicies', ['cpp'], false, true],
  ['ResourceBinding', 'work.karmada.io/v1alpha2', 'resourcebindings', ['rb'], true, true],
  ['ClusterResourceBinding', 'work.karmada.io/v1alpha2', 'clusterresourcebindings', ['crb'], false, true],
  ['FederatedHPA', 'autoscaling.karmada.io/v1alpha1', 'federatedhpas', ['fhpa'], true, true],
  ['CronFederatedHPA', 'autoscaling.karmada.io/v1alpha1', 'cronfederatedhpas', ['cronfhpa'], true, true],
  ['WorkloadRebalancer', 'apps.karmada.io/v1alpha1', 'workloadrebalancers', [], false, true],
  [
    'EffectiveHorizontalPodAutoscaler',
    'autoscaling.crane.io/v1alpha1',
    'effectivehorizontalpodautoscalers',
    ['ehpa'],
    true,
    true,
  ],
  ['Deployment', 'apps/v1', 'deployments', ['deploy'], true, false],
  ['StatefulSet', 'apps/v1', 'statefulsets', ['sts'], true, false],
  ['ConfigMap', 'v1', 'configmaps', ['cm'], true, false],
  ['Secret', 'v1', 'secrets', [], true, false],
  ['Service', 'v1', 'services', ['svc'], true, false],
  ['ClusterRole', 'rbac.authorization.k8s.io/v1', 'clusterroles', [], false, false],
  ['PriorityClass', 'scheduling.k8s.io/v1', 'priorityclasses', ['pc'], false, false],
  ['HorizontalPodAutoscaler', 'autoscaling/v2', 'horizontalpodautoscalers', ['hpa'], true, false],
];

describe('registry', () => {
  it('registers exactly the kinds of PRODUCT.md plus the generic templates', () => {
    expect(listKinds().map((k) => k.kind)).toEqual(KINDS.map((k) => k[0]));
  });

  describe.each(KINDS)('%s', (kind, apiVersion, plural, shortNames, namespaced, strict) => {
    const group = apiVersion.includes('/') ? apiVersion.split('/')[0]! : '';
    const tokens = [
      kind,
      kind.toLowerCase(),
      kind.toUpperCase(),
      plural,
      ...shortNames,
      group ? `${plural}.${group}` : `${plural}.v1`,
    ];

    it.each(tokens)('resolves %s', (token) => {
      const info = resolveKind(token);
      expect(info.kind).toBe(kind);
    });

    it('has its identity', () => {
      const info = kindOf(apiVersion, kind);
      expect(info).toMatchObject({
        apiVersion,
        kind,
        plural,
        shortNames,
        namespaced,
        strict,
        group,
        singular: kind.toLowerCase(),
      });
      expect(info.version).toBe(apiVersion.split('/').pop());
    });
  });

  it('resolves kubectl forms with version and singular', () => {
    expect(resolveKind('deployments.v1.apps').kind).toBe('Deployment');
    expect(resolveKind('deployment.apps').kind).toBe('Deployment');
    expect(resolveKind(' cronfhpa ').kind).toBe('CronFederatedHPA');
    expect(resolveKind('workloadrebalancer').kind).toBe('WorkloadRebalancer');
  });

  it.each(['foo', '', 'deployments.extensions', 'replicasets', 'pods'])(
    'rejects %j with the list of valid kinds',
    (token) => {
      expect(() => resolveKind(token)).toThrow(UnknownKindError);
      expect(() => resolveKind(token)).toThrow(/valid kinds are Cluster, PropagationPolicy, .*HorizontalPodAutoscaler/);
    },
  );

  it('kindOf rejects an unknown kind and a wrong apiVersion', () => {
    expect(() => kindOf('apps/v1', 'ReplicaSet')).toThrow(UnknownKindError);
    expect(() => kindOf('apps/v2', 'Deployment')).toThrow(WrongApiVersionError);
    expect(() => kindOf('apps/v2', 'Deployment')).toThrow(
      'apiVersion "apps/v2" is not served for kind Deployment; use apps/v1',
    );
    // Kinds are case-sensitive on the wire, as in Kubernetes.
    expect(() => kindOf('apps/v1', 'deployment')).toThrow(UnknownKindError);
  });

  it('registerKind adds a generic kind until it is removed, and refuses a taken name', () => {
    const remove = registerKind({
      group: 'example.com',
      version: 'v1',
      kind: 'Widget',
      plural: 'widgets',
      shortNames: ['wd'],
      namespaced: true,
    });
    try {
      expect(resolveKind('wd')).toMatchObject({ kind: 'Widget', apiVersion: 'example.com/v1', strict: false });
      expect(kindOf('example.com/v1', 'Widget').plural).toBe('widgets');
      expect(() =>
        registerKind({ group: 'x', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true }),
      ).toThrow(/already registered/);
    } finally {
      remove();
    }
    expect(() => resolveKind('widgets')).toThrow(UnknownKindError);
  });
});
