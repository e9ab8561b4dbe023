import { ReservedNamespaces } from '@flotilla/api';
import type { PropagationPolicy, ResourceTemplate } from '@flotilla/scheduling';
import { describe, expect, it } from 'vitest';
import {
  decideReservedTemplate,
  POLICY_SELECTOR_PROJECTION,
  type ReservedTemplateDecision,
} from './reserved-template.js';

const template = (
  namespace: string,
  labels: Record<string, string> = { app: 'sel' },
  kind = 'Deployment',
  name = 'web',
): ResourceTemplate => ({ apiVersion: 'apps/v1', kind, metadata: { name, namespace, labels }, spec: { replicas: 1 } });

const policy = (
  kind: 'PropagationPolicy' | 'ClusterPropagationPolicy',
  name: string,
  selector: Record<string, unknown>,
  extra: { namespace?: string; priority?: number } = {},
): PropagationPolicy => ({
  apiVersion: 'policy.karmada.io/v1alpha1',
  kind,
  metadata: { name, ...(extra.namespace ? { namespace: extra.namespace } : {}) },
  spec: {
    resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', ...selector }],
    ...(extra.priority === undefined ? {} : { priority: extra.priority }),
  },
});

const bySel = policy('ClusterPropagationPolicy', 'all-deployments', { labelSelector: { matchLabels: { app: 'sel' } } });
const rule = (ns: string, entries = 'kube-*, flotilla-system') =>
  `namespace "${ns}" is reserved (${entries}): Flotilla does not propagate from or into it`;
const refused = (ns: string, by: string, kind = 'Deployment', entries?: string): ReservedTemplateDecision => ({
  type: 'refuse',
  cause: { field: 'metadata.namespace', message: `Forbidden: ${rule(ns, entries)}; ${by} selects this ${kind}` },
});
const allowed: ReservedTemplateDecision = { type: 'allow' };
const defaults = ReservedNamespaces.defaults;

describe('decideReservedTemplate', () => {
  const cases: Array<[string, ResourceTemplate, PropagationPolicy[], ReservedNamespaces, ReservedTemplateDecision]> = [
    [
      'a Deployment in kube-system a ClusterPropagationPolicy selects by label: refused, naming the rule and the policy',
      template('kube-system'),
      [bySel],
      defaults,
      refused('kube-system', 'ClusterPropagationPolicy "all-deployments"'),
    ],
    [
      'one in kube-system no policy selects (coredns): allowed',
      template('kube-system', { k8s: 'dns' }),
      [bySel],
      defaults,
      allowed,
    ],
    ['one in kube-system with no policy at all: allowed', template('kube-system'), [], defaults, allowed],
    ['the same Deployment in default: not for this rule', template('default'), [bySel], defaults, allowed],
    [
      'in flotilla-system and kube-node-lease too',
      template('flotilla-system'),
      [bySel],
      defaults,
      refused('flotilla-system', 'ClusterPropagationPolicy "all-deployments"'),
    ],
    [
      'a policy that selects every Deployment of every namespace',
      template('kube-node-lease', {}),
      [policy('ClusterPropagationPolicy', 'everything', {})],
      defaults,
      refused('kube-node-lease', 'ClusterPropagationPolicy "everything"'),
    ],
    [
      'a policy that selects it by name',
      template('kube-system', {}),
      [policy('ClusterPropagationPolicy', 'named', { name: 'web' })],
      defaults,
      refused('kube-system', 'ClusterPropagationPolicy "named"'),
    ],
    [
      'a policy whose selector names another namespace',
      template('kube-system'),
      [policy('ClusterPropagationPolicy', 'in-default', { namespace: 'default' })],
      defaults,
      allowed,
    ],
    [
      'a policy for StatefulSets does not select a Deployment',
      template('kube-system'),
      [{ ...bySel, spec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'StatefulSet' }] } }],
      defaults,
      allowed,
    ],
    [
      'a StatefulSet a policy selects: named as such',
      template('kube-system', {}, 'StatefulSet'),
      [{ ...bySel, spec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'StatefulSet' }] } }],
      defaults,
      refused('kube-system', 'ClusterPropagationPolicy "all-deployments"', 'StatefulSet'),
    ],
    [
      "a PropagationPolicy of kube-system stored before the rule: the detector's choice, before any cluster policy",
      template('kube-system'),
      [bySel, policy('PropagationPolicy', 'legacy', {}, { namespace: 'kube-system' })],
      defaults,
      refused('kube-system', 'PropagationPolicy "legacy"'),
    ],
    [
      "another namespace's PropagationPolicy does not select it",
      template('kube-system'),
      [policy('PropagationPolicy', 'elsewhere', {}, { namespace: 'default' })],
      defaults,
      allowed,
    ],
    [
      'of two cluster policies, the one the detector picks (higher priority) is named',
      template('kube-system'),
      [bySel, policy('ClusterPropagationPolicy', 'urgent', {}, { priority: 5 })],
      defaults,
      refused('kube-system', 'ClusterPropagationPolicy "urgent"'),
    ],
    [
      'a configured namespace (RESERVED_NAMESPACES), with the configured list in the words',
      template('payments'),
      [bySel],
      ReservedNamespaces.parse('payments'),
      refused(
        'payments',
        'ClusterPropagationPolicy "all-deployments"',
        'Deployment',
        'kube-*, flotilla-system, payments',
      ),
    ],
    ['a configured namespace, not configured', template('payments'), [bySel], defaults, allowed],
  ];
  it.each(cases)('%s', (_what, t, policies, reserved, expected) => {
    expect(decideReservedTemplate({ template: t, policies, reserved })).toEqual(expected);
  });

  it('lets an update through, warning, when a policy selected the template already (its controller writes it)', () => {
    const decision = decideReservedTemplate({
      template: template('kube-system'),
      old: template('kube-system'),
      policies: [bySel],
      reserved: defaults,
    });
    expect(decision).toEqual({
      type: 'warn',
      warning: `metadata.namespace: ${rule('kube-system')}; ClusterPropagationPolicy "all-deployments" selects this Deployment (an update of one it selected before is let through)`,
    });
  });

  it('refuses an update that brings the template under a policy (the label added)', () => {
    const decision = decideReservedTemplate({
      template: template('kube-system'),
      old: template('kube-system', {}),
      policies: [bySel],
      reserved: defaults,
    });
    expect(decision).toEqual(refused('kube-system', 'ClusterPropagationPolicy "all-deployments"'));
  });
});

describe('POLICY_SELECTOR_PROJECTION', () => {
  it('keeps what the decision reads of a policy (who it is, its selectors and priority), not its placement', () => {
    const stored = {
      ...policy('ClusterPropagationPolicy', 'p', { name: 'web' }, { priority: 3 }),
      metadata: { name: 'p', resourceVersion: '7', uid: 'u', labels: { a: 'b' } },
      spec: { ...policy('ClusterPropagationPolicy', 'p', { name: 'web' }, { priority: 3 }).spec, placement: {} },
    };
    const kept = POLICY_SELECTOR_PROJECTION.project(stored as never);
    expect(kept).toEqual({
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'ClusterPropagationPolicy',
      metadata: { name: 'p', namespace: undefined, resourceVersion: '7' },
      spec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }], priority: 3 },
    });
    expect(
      decideReservedTemplate({ template: template('kube-system', {}), policies: [kept as never], reserved: defaults }),
    ).toEqual(refused('kube-system', 'ClusterPropagationPolicy "p"'));
  });
});
