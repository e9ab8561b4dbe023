import { describe, expect, it } from 'vitest';
import {
  buildBinding,
  findMatchingPolicy,
  ImplicitPriority,
  podRequests,
  selectorPriority,
  templateReplicas,
} from './detection.js';
import { SchedulingInputError } from './errors.js';
import type { PropagationPolicy, ResourceSelector, ResourceTemplate } from './types.js';

const deploy: ResourceTemplate = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'nginx',
    namespace: 'default',
    uid: 'd43fdeeb-d750-4e2b-bee3-64eb94534f4c',
    labels: { app: 'nginx', tier: 'web' },
  },
  spec: {
    replicas: 3,
    template: {
      spec: {
        containers: [
          { name: 'a', resources: { requests: { cpu: '250m', memory: '64Mi' } } },
          { name: 'b', resources: { requests: { cpu: '1', memory: '1Gi', 'nvidia.com/gpu': 1 } } },
          { name: 'c' },
        ],
      },
    },
  },
};

const pp = (
  name: string,
  selectors: ResourceSelector[],
  priority?: number,
  namespace = 'default',
): PropagationPolicy => ({
  apiVersion: 'policy.karmada.io/v1alpha1',
  kind: 'PropagationPolicy',
  metadata: { name, namespace },
  spec: {
    resourceSelectors: selectors,
    ...(priority !== undefined && { priority }),
    placement: { clusterAffinity: { clusterNames: [name] } },
  },
});
const cpp = (name: string, selectors: ResourceSelector[], priority?: number): PropagationPolicy => ({
  ...pp(name, selectors, priority),
  kind: 'ClusterPropagationPolicy',
  metadata: { name },
});
const D = { apiVersion: 'apps/v1', kind: 'Deployment' };

describe('selectorPriority', () => {
  it.each([
    { rs: { ...D, name: 'nginx' }, want: ImplicitPriority.MatchName },
    { rs: { ...D, name: 'nginx', labelSelector: { matchLabels: { app: 'other' } } }, want: ImplicitPriority.MatchName },
    { rs: { ...D, name: 'other' }, want: ImplicitPriority.MisMatch },
    { rs: { ...D, labelSelector: { matchLabels: { app: 'nginx' } } }, want: ImplicitPriority.MatchLabelSelector },
    {
      rs: { ...D, labelSelector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['web', 'api'] }] } },
      want: ImplicitPriority.MatchLabelSelector,
    },
    {
      rs: { ...D, labelSelector: { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['web'] }] } },
      want: ImplicitPriority.MisMatch,
    },
    { rs: { ...D }, want: ImplicitPriority.MatchAll },
    { rs: { ...D, namespace: 'default' }, want: ImplicitPriority.MatchAll },
    { rs: { ...D, namespace: 'prod' }, want: ImplicitPriority.MisMatch },
    { rs: { apiVersion: 'apps/v1', kind: 'StatefulSet' }, want: ImplicitPriority.MisMatch },
    { rs: { apiVersion: 'apps/v1beta1', kind: 'Deployment' }, want: ImplicitPriority.MisMatch },
  ])('%o', ({ rs, want }) => {
    expect(selectorPriority(deploy, rs)).toBe(want);
  });
});

describe('findMatchingPolicy', () => {
  const name = (ps: PropagationPolicy[]) => findMatchingPolicy(deploy, ps)?.metadata.name;
  it.each([
    {
      case: 'explicit priority beats specificity',
      ps: [pp('by-name', [{ ...D, name: 'nginx' }]), pp('all', [D], 5)],
      want: 'all',
    },
    {
      case: 'then name beats label selector',
      ps: [
        pp('a-labels', [{ ...D, labelSelector: { matchLabels: { app: 'nginx' } } }]),
        pp('z-name', [{ ...D, name: 'nginx' }]),
      ],
      want: 'z-name',
    },
    {
      case: 'then label selector beats match-all',
      ps: [pp('a-all', [D]), pp('b-labels', [{ ...D, labelSelector: { matchLabels: { app: 'nginx' } } }])],
      want: 'b-labels',
    },
    { case: 'then the smaller name', ps: [pp('b', [D]), pp('a', [D]), pp('c', [D])], want: 'a' },
    {
      case: 'best selector of a policy counts',
      ps: [
        pp('a', [D]),
        pp('b', [
          { ...D, name: 'zzz' },
          { ...D, name: 'nginx' },
        ]),
      ],
      want: 'b',
    },
    {
      case: 'namespaced PP beats a higher-priority CPP',
      ps: [cpp('cluster-wide', [{ ...D, name: 'nginx' }], 100), pp('local', [D])],
      want: 'local',
    },
    {
      case: 'CPP when no PP matches',
      ps: [cpp('cluster-wide', [D]), pp('other', [{ ...D, name: 'x' }])],
      want: 'cluster-wide',
    },
    { case: 'PP of another namespace is ignored', ps: [pp('elsewhere', [D], 0, 'prod')], want: undefined },
    {
      case: 'CPPs rank among themselves',
      ps: [cpp('b', [D], 1), cpp('a', [D], 1), cpp('c', [{ ...D, name: 'nginx' }])],
      want: 'a',
    },
    { case: 'nothing matches', ps: [pp('x', [{ apiVersion: 'v1', kind: 'ConfigMap' }])], want: undefined },
  ])('$case', ({ ps, want }) => {
    expect(name(ps)).toBe(want);
  });

  it('a cluster-scoped template only sees ClusterPropagationPolicies', () => {
    const role: ResourceTemplate = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'viewer' },
    };
    const rs = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' };
    expect(findMatchingPolicy(role, [pp('ns', [rs]), cpp('cl', [rs])])?.metadata.name).toBe('cl');
  });
});

describe('buildBinding', () => {
  it('builds the ResourceBinding for a Deployment', () => {
    const policy = pp('nginx-pp', [{ ...D, name: 'nginx' }]);
    const b = buildBinding(deploy, policy);
    expect(b).toEqual({
      apiVersion: 'work.karmada.io/v1alpha2',
      kind: 'ResourceBinding',
      metadata: {
        name: 'nginx-deployment',
        namespace: 'default',
        annotations: {
          'propagationpolicy.karmada.io/name': 'nginx-pp',
          'propagationpolicy.karmada.io/namespace': 'default',
        },
      },
      spec: {
        resource: {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          namespace: 'default',
          name: 'nginx',
          uid: 'd43fdeeb-d750-4e2b-bee3-64eb94534f4c',
        },
        replicas: 3,
        replicaRequirements: {
          resourceRequest: { cpu: '1250m', memory: '1088Mi', 'nvidia.com/gpu': '1' },
        },
        placement: { clusterAffinity: { clusterNames: ['nginx-pp'] } },
      },
    });
    // The placement is a copy: editing the binding must not edit the policy.
    b.spec.placement!.clusterAffinity!.clusterNames!.push('x');
    expect(policy.spec.placement!.clusterAffinity!.clusterNames).toEqual(['nginx-pp']);
  });

  it('builds a ClusterResourceBinding without replicas for a cluster-scoped non-workload', () => {
    const role: ResourceTemplate = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'viewer', uid: 'u1' },
    };
    const b = buildBinding(role, cpp('roles', []));
    expect(b.kind).toBe('ClusterResourceBinding');
    expect(b.metadata).toEqual({
      name: 'viewer-clusterrole',
      annotations: { 'clusterpropagationpolicy.karmada.io/name': 'roles' },
    });
    expect(b.spec.replicas).toBeUndefined();
    expect(b.spec.replicaRequirements).toBeUndefined();
  });

  it('a namespaced ConfigMap under a CPP gets a namespaced ResourceBinding without replicas', () => {
    const cm: ResourceTemplate = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cfg', namespace: 'default' },
    };
    const b = buildBinding(cm, cpp('all', []));
    expect([b.kind, b.metadata.name, b.metadata.namespace, b.spec.replicas]).toEqual([
      'ResourceBinding',
      'cfg-configmap',
      'default',
      undefined,
    ]);
  });

  it.each([
    { kind: 'Deployment', spec: {}, want: 1 },
    { kind: 'StatefulSet', spec: { replicas: 0 }, want: 0 },
    { kind: 'CloneSet', spec: { replicas: 4 }, want: 4 },
    { kind: 'Job', spec: {}, want: undefined },
  ])('replicas of a $kind with spec $spec', ({ kind, spec, want }) => {
    expect(templateReplicas({ apiVersion: 'x/v1', kind, metadata: { name: 'n' }, spec })).toBe(want);
  });

  it.each([-1, 1.5, '3'])('rejects spec.replicas %o', (replicas) => {
    expect(() => templateReplicas({ ...deploy, spec: { replicas } })).toThrow(SchedulingInputError);
    expect(() => templateReplicas({ ...deploy, spec: { replicas } })).toThrow(
      /^spec\.replicas: must be a non-negative integer/,
    );
  });

  it('names the container field of a bad request quantity', () => {
    const bad: ResourceTemplate = {
      ...deploy,
      spec: { template: { spec: { containers: [{}, { resources: { requests: { cpu: 'fast' } } }] } } },
    };
    expect(() => podRequests(bad)).toThrow(
      'spec.template.spec.containers[1].resources.requests.cpu: invalid quantity "fast"',
    );
  });

  it("carries the pod template's node constraints as replicaRequirements.nodeClaim, with or without requests", () => {
    const constrained = (containers: unknown[]): ResourceTemplate => ({
      ...deploy,
      spec: { replicas: 0, template: { spec: { nodeSelector: { disk: 'ssd' }, containers } } },
    });
    expect(buildBinding(constrained([{ name: 'a' }]), pp('p', [D])).spec.replicaRequirements).toEqual({
      nodeClaim: { nodeSelector: { disk: 'ssd' } },
    });
    expect(
      buildBinding(constrained([{ name: 'a', resources: { requests: { cpu: '1' } } }]), pp('p', [D])).spec
        .replicaRequirements,
    ).toEqual({
      nodeClaim: { nodeSelector: { disk: 'ssd' } },
      resourceRequest: { cpu: '1' },
    });
  });

  it('has no requirements when no container requests anything', () => {
    expect(podRequests({ ...deploy, spec: { template: { spec: { containers: [{ name: 'a' }] } } } })).toBeUndefined();
  });

  it('requires a template name', () => {
    expect(() => buildBinding({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }, cpp('x', []))).toThrow(
      'metadata.name: required',
    );
  });
});
