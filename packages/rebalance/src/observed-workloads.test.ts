import { describe, expect, it } from 'vitest';
import { bindingRefOf, bindingMatchesWorkload } from './binding-ref.js';
import { syncObservedWorkloads, workloadSortKey } from './observed-workloads.js';
import type { ObservedWorkload, WorkloadReference } from './types.js';

const ref = (apiVersion: string, kind: string, namespace: string, name: string): WorkloadReference => ({
  apiVersion,
  kind,
  name,
  ...(namespace ? { namespace } : {}),
});

describe('observed workloads: Karmada sort order (space-joined key, byte order)', () => {
  it('puts cluster-scoped first in a kind, ns before ns-2, upper case before lower, apps/v1 before v1', () => {
    const expected = [
      ref('apps/v1', 'Deployment', '', 'app'),
      ref('apps/v1', 'Deployment', 'ns', 'App'),
      ref('apps/v1', 'Deployment', 'ns', 'app'),
      ref('apps/v1', 'Deployment', 'ns-2', 'app'),
      ref('apps/v1', 'StatefulSet', 'ns', 'app'),
      ref('v1', 'ConfigMap', 'ns', 'app'),
    ];
    const shuffled = [expected[5]!, expected[3]!, expected[0]!, expected[4]!, expected[2]!, expected[1]!];
    expect(syncObservedWorkloads([], shuffled).observed.map((o) => o.workload)).toEqual(expected);
  });
  it('differs from a "/" join exactly where the proposal and the code disagree (ns vs ns-2)', () => {
    const a = ref('apps/v1', 'Deployment', 'ns', 'z');
    const b = ref('apps/v1', 'Deployment', 'ns-2', 'a');
    expect(workloadSortKey(a) < workloadSortKey(b)).toBe(true);
    expect(`${a.namespace}/${a.name}` < `${b.namespace}/${b.name}`).toBe(false);
  });
});

describe('observed workloads: sync from spec (Karmada syncWorkloadsFromSpecToStatus)', () => {
  const a = ref('apps/v1', 'Deployment', 'default', 'a');
  const b = ref('apps/v1', 'Deployment', 'default', 'b');
  const c = ref('apps/v1', 'Deployment', 'default', 'c');
  const d = ref('apps/v1', 'Deployment', 'default', 'd');
  const prev: ObservedWorkload[] = [
    { workload: a, result: 'Successful' },
    { workload: b, result: 'Failed', reason: 'ReferencedBindingNotFound' },
    { workload: c },
  ];
  it.each<[string, WorkloadReference[], ObservedWorkload[], WorkloadReference[], WorkloadReference[]]>([
    ['unchanged spec keeps every result', [a, b, c], prev, [], []],
    [
      'removed Successful stays, removed Failed and pending go',
      [d],
      [{ workload: a, result: 'Successful' }, { workload: d }],
      [d],
      [b, c],
    ],
    ['duplicates collapse on the exact reference', [c, c, a, a, b], prev, [], []],
    ['an empty namespace is the same as none', [a, b, { ...c, namespace: 'default' }], prev, [], []],
  ])('%s', (_title, wanted, observed, added, dropped) => {
    const r = syncObservedWorkloads(prev, wanted);
    expect(r.observed).toEqual(observed);
    expect(r.added).toEqual(added);
    expect(r.dropped).toEqual(dropped);
  });
});

describe('binding name (Karmada GenerateBindingName)', () => {
  it.each<[string, WorkloadReference, ReturnType<typeof bindingRefOf>]>([
    [
      'namespaced: a ResourceBinding in its namespace',
      ref('apps/v1', 'Deployment', 'default', 'demo-deploy-1'),
      { kind: 'ResourceBinding', namespace: 'default', name: 'demo-deploy-1-deployment' },
    ],
    [
      'cluster-scoped: a ClusterResourceBinding',
      ref('rbac.authorization.k8s.io/v1', 'ClusterRole', '', 'demo-role'),
      { kind: 'ClusterResourceBinding', name: 'demo-role-clusterrole' },
    ],
    [
      'a colon in the name becomes a dot',
      ref('rbac.authorization.k8s.io/v1', 'ClusterRole', '', 'system:aggregate-to-edit'),
      { kind: 'ClusterResourceBinding', name: 'system.aggregate-to-edit-clusterrole' },
    ],
    [
      'lower-cased, so the kind case does not matter',
      ref('apps/v1', 'deployment', 'shop', 'Web'),
      { kind: 'ResourceBinding', namespace: 'shop', name: 'web-deployment' },
    ],
  ])('%s', (_title, w, expected) => {
    expect(bindingRefOf(w)).toEqual(expected);
  });
  it("a binding is the workload's only for the same apiVersion (Karmada ignores it)", () => {
    const b = {
      metadata: { name: 'web-deployment' },
      spec: { resource: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' } },
    };
    expect(bindingMatchesWorkload(b, ref('apps/v1', 'Deployment', 'd', 'web'))).toBe(true);
    expect(bindingMatchesWorkload(b, ref('apps/v1beta1', 'Deployment', 'd', 'web'))).toBe(false);
  });
});
