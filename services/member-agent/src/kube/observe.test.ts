import { DEFAULT_RESOURCE_MODELS, ReservedNamespaces } from '@flotilla/api';
import { describe, expect, it } from 'vitest';
import type { BindingRef } from '../report-model.js';
import type { NodeView } from './cluster-status.js';
import { type DesiredObject, type DesiredState, formatBindingRef, type MemberRef } from './member-objects.js';
import {
  type CacheView,
  HPA_KIND,
  observeCluster,
  observeWorkloads,
  planMemberWrites,
  podsWithLabelOf,
} from './observe.js';
import type { MemberObjectView, PodView } from './workload-status.js';

// The kube driver's decisions from what its caches hold: no API server, no bus; each row one situation.

const DEPLOY = 'apps/v1/Deployment';
const CM = 'v1/ConfigMap';
const binding = (name: string): BindingRef => ({ kind: 'ResourceBinding', namespace: 'shop', name });
const deployRef = (name: string): MemberRef => ({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name });
const cmRef = (name: string): MemberRef => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name });

function desiredOf(...objects: Array<{ ref: MemberRef; binding: BindingRef; replicas?: number; cpu?: string }>) {
  const state: DesiredState = { objects: [], assigned: new Map(), namespaces: new Set(['shop']) };
  for (const o of objects) {
    const d: DesiredObject = {
      ref: o.ref,
      binding: o.binding,
      manifest: { apiVersion: o.ref.apiVersion, kind: o.ref.kind, metadata: { name: o.ref.name, namespace: 'shop' } },
      hash: `h-${o.ref.name}`,
      hpaOwnsReplicas: false,
      ...(o.replicas !== undefined ? { replicas: o.replicas } : {}),
      ...(o.cpu ? { podTemplate: { containers: [{ name: 'c', resources: { requests: { cpu: o.cpu } } }] } } : {}),
    };
    state.objects.push(d);
    state.assigned.set(formatBindingRef(o.binding), { binding: o.binding, ref: o.ref });
  }
  return state;
}

const view = (ref: MemberRef, more: Partial<MemberObjectView> = {}): MemberObjectView => ({
  ref,
  binding: formatBindingRef(binding(`${ref.name}-${ref.kind.toLowerCase()}`)),
  appliedHash: `h-${ref.name}`,
  ...more,
});
const cache = <T>(synced: boolean, entries: Array<[string, T]> = []): CacheView<T> => ({
  synced,
  cache: new Map(entries),
});
const keyed = (v: MemberObjectView): [string, MemberObjectView] => [`${v.ref.namespace}/${v.ref.name}`, v];

describe('planMemberWrites', () => {
  const web = { ref: deployRef('web'), binding: binding('web-deployment'), replicas: 2 };
  const orphan = view(cmRef('old'), { binding: formatBindingRef(binding('gone-configmap')), appliedHash: 'x' });
  it.each([
    {
      name: 'a new object is applied, an orphan of Flotilla deleted',
      managed: { [DEPLOY]: cache<MemberObjectView>(true), [CM]: cache(true, [keyed(orphan)]) },
      want: ['apply shop/web', 'delete shop/old'],
    },
    {
      name: 'nothing is deleted while any kind is not listed (the picture is not full)',
      managed: { [DEPLOY]: cache<MemberObjectView>(true), [CM]: cache(false, [keyed(orphan)]) },
      want: ['apply shop/web'],
    },
    {
      name: 'an object of a kind not listed yet waits',
      managed: { [DEPLOY]: cache<MemberObjectView>(false), [CM]: cache<MemberObjectView>(true) },
      want: [],
    },
    {
      name: 'an object applied as desired is left alone',
      managed: { [DEPLOY]: cache(true, [keyed(view(deployRef('web')))]), [CM]: cache<MemberObjectView>(true) },
      want: [],
    },
  ])('$name', ({ managed, want }) => {
    const plan = planMemberWrites(desiredOf(web), new Map(Object.entries(managed)));
    expect(
      plan.actions.map((a) =>
        a.type === 'apply' ? `apply shop/${a.object.ref.name}` : `delete ${a.ref.namespace}/${a.ref.name}`,
      ),
    ).toEqual(want);
  });

  it("a pass over some bindings removes their objects only: the others' bindings were not looked at", () => {
    const other = view(cmRef('other'), { binding: formatBindingRef(binding('other-configmap')), appliedHash: 'x' });
    const left = view(cmRef('left'), { binding: formatBindingRef(binding('left-configmap')), appliedHash: 'x' });
    const managed = new Map([
      [DEPLOY, cache(true, [keyed(view(deployRef('web'), { appliedHash: 'stale' }))])],
      [CM, cache(true, [keyed(other), keyed(left)])],
    ]);
    const scope = new Set([formatBindingRef(web.binding), formatBindingRef(binding('left-configmap'))]);
    const plan = planMemberWrites(desiredOf(web), managed, { bindings: scope });
    expect(
      plan.actions.map((a) =>
        a.type === 'apply' ? `${a.reason} shop/${a.object.ref.name}` : `delete ${a.ref.namespace}/${a.ref.name}`,
      ),
    ).toEqual(['update shop/web', 'delete shop/left']);
    // Over the whole share, the other binding's object would go too.
    expect(planMemberWrites(desiredOf(web), managed).actions.filter((a) => a.type === 'delete')).toHaveLength(2);
  });

  it('a pass over the whole share but the bindings changed since its round opened leaves their objects alone', () => {
    const later = view(cmRef('later'), { binding: formatBindingRef(binding('later-configmap')), appliedHash: 'x' });
    const gone = view(cmRef('gone'), { binding: formatBindingRef(binding('gone-configmap')), appliedHash: 'x' });
    const managed = new Map([
      [DEPLOY, cache(true, [keyed(view(deployRef('web'), { appliedHash: 'stale' }))])],
      [CM, cache(true, [keyed(later), keyed(gone)])],
    ]);
    const except = new Set([formatBindingRef(binding('later-configmap'))]);
    const plan = planMemberWrites(desiredOf(web), managed, { except });
    expect(
      plan.actions.map((a) =>
        a.type === 'apply' ? `${a.reason} shop/${a.object.ref.name}` : `delete ${a.ref.namespace}/${a.ref.name}`,
      ),
    ).toEqual(['update shop/web', 'delete shop/gone']);
  });

  it("someone else's object of the same name is a conflict, never written", () => {
    const theirs = view(deployRef('web'), { binding: undefined, appliedHash: undefined });
    const plan = planMemberWrites(desiredOf(web), new Map([[DEPLOY, cache(true, [keyed(theirs)])]]));
    expect(plan.actions).toEqual([]);
    expect([...plan.conflicts.values()]).toEqual([
      'Deployment shop/web already exists in the member cluster and was not created by Flotilla: left unchanged',
    ]);
  });
});

describe('planMemberWrites: reserved namespaces', () => {
  const inNs = (ref: MemberRef, namespace: string): MemberRef => ({ ...ref, namespace });
  const refusal = (ns: string, entries = 'kube-*, flotilla-system') =>
    `namespace "${ns}" is reserved (${entries}): Flotilla does not propagate from or into it; not applied`;
  const payments = new ReservedNamespaces(['payments']);
  it.each([
    {
      name: 'a template in kube-system is refused with why, never applied',
      namespace: 'kube-system',
      reserved: undefined,
      orphan: false,
      want: [],
      conflict: refusal('kube-system'),
    },
    {
      name: 'a template in flotilla-system too',
      namespace: 'flotilla-system',
      reserved: undefined,
      orphan: false,
      want: [],
      conflict: refusal('flotilla-system'),
    },
    {
      name: 'a template in a configured namespace too',
      namespace: 'payments',
      reserved: payments,
      orphan: false,
      want: [],
      conflict: refusal('payments', 'kube-*, flotilla-system, payments'),
    },
    {
      name: 'the same template elsewhere is applied',
      namespace: 'payments',
      reserved: undefined,
      orphan: false,
      want: ['apply payments/web'],
      conflict: undefined,
    },
    {
      name: 'what Flotilla created in kube-system before is not deleted either (left for a person)',
      namespace: 'kube-system',
      reserved: undefined,
      orphan: true,
      want: [],
      conflict: refusal('kube-system'),
    },
    {
      name: 'an orphan of Flotilla outside a reserved namespace is deleted as before',
      namespace: 'shop',
      reserved: undefined,
      orphan: true,
      want: ['apply shop/web', 'delete shop/old'],
      conflict: undefined,
    },
  ])('$name', ({ namespace, reserved, orphan, want, conflict }) => {
    const ref = inNs(deployRef('web'), namespace);
    const old = view(inNs(cmRef('old'), namespace), { binding: formatBindingRef(binding('gone-configmap')) });
    const managed = new Map([
      [DEPLOY, cache<MemberObjectView>(true)],
      [CM, cache(true, orphan ? [keyed(old)] : [])],
    ]);
    const plan = planMemberWrites(desiredOf({ ref, binding: binding('web-deployment'), replicas: 2 }), managed, {
      reserved,
    });
    expect(
      plan.actions.map((a) =>
        a.type === 'apply'
          ? `apply ${a.object.ref.namespace}/${a.object.ref.name}`
          : `delete ${a.ref.namespace}/${a.ref.name}`,
      ),
    ).toEqual(want);
    expect(plan.conflicts.get(`apps/v1/Deployment/${namespace}/web`)).toBe(conflict);
  });

  it('the refusal is what the binding reports for the cluster (not applied, with why)', () => {
    const ref = inNs(deployRef('web'), 'kube-system');
    const desired = desiredOf({ ref, binding: binding('web-deployment'), replicas: 2 });
    const managed = new Map([[DEPLOY, cache<MemberObjectView>(true)]]);
    const plan = planMemberWrites(desired, managed);
    const seen = observeWorkloads({
      cluster: 'm1',
      desired,
      managed,
      conflicts: plan.conflicts,
      writeErrors: new Map(),
      unservedKinds: new Map(),
      pods: podsWithLabelOf([]),
      podCpu: new Map(),
    });
    expect(seen.reports.get('ResourceBinding/shop/web-deployment')).toMatchObject({
      applied: false,
      appliedMessage: refusal('kube-system'),
    });
  });
});

describe('observeWorkloads', () => {
  const pod = (name: string, ready: boolean, more: Partial<PodView> = {}): PodView => ({
    namespace: 'shop',
    name,
    labels: { app: 'web' },
    nodeName: 'n1',
    phase: 'Running',
    unschedulable: false,
    ready,
    request: { cpuMilli: 250, memoryBytes: 0, pods: 1 },
    ...more,
  });
  const webView = view(deployRef('web'), {
    replicas: 2,
    selector: { app: 'web' },
    status: { replicas: 2, readyReplicas: 1, availableReplicas: 1 },
  });
  const base = {
    cluster: 'm1',
    conflicts: new Map<string, string>(),
    writeErrors: new Map<string, string>(),
    unservedKinds: new Map<string, string>(),
    pods: podsWithLabelOf([pod('web-1', true), pod('web-2', false), pod('other', true, { labels: { app: 'other' } })]),
    podCpu: new Map([
      [
        'shop',
        new Map([
          ['web-1', 120],
          ['web-2', 80],
          ['other', 999],
        ]),
      ],
    ]),
  };
  const web = { ref: deployRef('web'), binding: binding('web-deployment'), replicas: 2, cpu: '250m' };
  const cfg = { ref: cmRef('cfg'), binding: binding('cfg-configmap') };
  const managed = new Map([
    [DEPLOY, cache(true, [keyed(webView)])],
    [CM, cache(true, [keyed(view(cmRef('cfg')))])],
  ]);
  const mKey = 'apps/v1/Deployment/shop/web';

  it.each([
    {
      name: 'a workload: replicas from its view, pending from its pods, usage from its ready pods',
      input: {},
      want: {
        applied: true,
        health: 'Unhealthy',
        status: { replicas: 2, readyReplicas: 1, availableReplicas: 1, pendingReplicas: 0, cpuRequestMilli: 250 },
      },
    },
    {
      name: 'a write the member cluster refused',
      input: { writeErrors: new Map([[mKey, 'forbidden']]) },
      want: { applied: false, health: 'Unknown', appliedMessage: 'forbidden' },
    },
    {
      name: "someone else's object",
      input: { conflicts: new Map([[mKey, 'not ours']]) },
      want: { applied: false, health: 'Unknown', appliedMessage: 'not ours' },
    },
    {
      name: 'a kind the cluster does not serve',
      input: { unservedKinds: new Map([[DEPLOY, 'no such kind']]) },
      want: { applied: false, health: 'Unknown', appliedMessage: 'no such kind' },
    },
    {
      name: 'applied but not listed back yet',
      input: { managed: new Map([[DEPLOY, cache<MemberObjectView>(true)]]) },
      want: {
        applied: false,
        health: 'Unknown',
        appliedMessage: 'waiting for the member cluster to list the applied object',
      },
    },
  ])('$name', ({ input, want }) => {
    const got = observeWorkloads({ ...base, desired: desiredOf(web), managed, ...input });
    expect(got.reports.get('ResourceBinding/shop/web-deployment')).toEqual(want);
  });

  it('reports a plain object healthy once listed, and usage only for workloads whose pods request CPU', () => {
    const got = observeWorkloads({ ...base, desired: desiredOf(web, cfg), managed });
    expect(got.reports.get('ResourceBinding/shop/cfg-configmap')).toEqual({ applied: true, health: 'Healthy' });
    expect(got.usage).toEqual(
      new Map([
        [
          'ResourceBinding/shop/web-deployment',
          {
            cpuMilli: 120,
            usage: { cluster: 'm1', namespace: 'shop', kind: 'Deployment', workload: 'web', cores: 0.12 },
          },
        ],
      ]),
    );
    expect(got.usageSources.get('ResourceBinding/shop/web-deployment')?.cpuRequestMilli).toBeGreaterThan(0);
    expect(got.usageSources.has('ResourceBinding/shop/cfg-configmap')).toBe(false);
    const noMetrics = observeWorkloads({ ...base, podCpu: new Map(), desired: desiredOf(web), managed });
    expect(noMetrics.usage).toEqual(new Map());
  });
});

describe('observeCluster', () => {
  const node: NodeView = { name: 'n1', allocatable: { cpuMilli: 4000, memoryBytes: 8 * 2 ** 30, pods: 110 } };
  const foreign = view(
    { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', namespace: 'shop', name: 'theirs' },
    { binding: undefined, hpa: { target: { kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 3 } },
  );
  const input = {
    version: 'v1.36.3',
    nodes: cache(true, [['/n1', node]]),
    pods: cache<PodView>(true),
    hpas: cache(true, [keyed(foreign)]),
    models: DEFAULT_RESOURCE_MODELS,
  };
  it.each([
    { name: 'nodes not listed', patch: { nodes: cache<NodeView>(false) } },
    { name: 'pods not listed', patch: { pods: cache<PodView>(false) } },
    { name: 'version unknown', patch: { version: undefined } },
  ])('nothing while $name', ({ patch }) => expect(observeCluster({ ...input, ...patch })).toBeUndefined());

  it('Ready with the summary, and foreign HPAs only from a complete list', () => {
    const full = observeCluster(input)!;
    expect(full.kubernetesVersion).toBe('v1.36.3');
    expect(full.resourceSummary?.allocatable).toMatchObject({ cpu: '4', pods: '110' });
    expect(full.foreignHorizontalPodAutoscalers).toEqual([
      {
        namespace: 'shop',
        name: 'theirs',
        scaleTargetRef: { kind: 'Deployment', name: 'web' },
        minReplicas: 1,
        maxReplicas: 3,
      },
    ]);
    expect(observeCluster({ ...input, hpas: cache(false, [keyed(foreign)]) })!).not.toHaveProperty(
      'foreignHorizontalPodAutoscalers',
    );
    expect(HPA_KIND).toBe('autoscaling/v2/HorizontalPodAutoscaler');
  });
});
