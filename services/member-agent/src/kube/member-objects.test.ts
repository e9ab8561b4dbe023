import type { StoredObject } from '@flotilla/store';
import { describe, expect, it } from 'vitest';
import {
  desiredMemberObjects,
  ManifestCache,
  manifestHash,
  memberKey,
  memberManifest,
  MemberMarks,
  planApply,
  type ObservedObject,
} from './member-objects.js';

const deployment = (name: string, replicas = 3, extra: Record<string, unknown> = {}): StoredObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name,
    namespace: 'shop',
    uid: 'u-1',
    resourceVersion: '42',
    generation: 2,
    creationTimestamp: '2026-01-01T00:00:00Z',
    labels: { app: name },
    annotations: {
      'kubectl.kubernetes.io/last-applied-configuration': '{}',
      'flotilla.io/fail-back-after': '10m',
      team: 'payments',
    },
  },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { spec: { containers: [] } } },
  status: { readyReplicas: 1 },
  ...extra,
});

const configMap = (name: string): StoredObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'shop' },
  data: { a: '1' },
});

const binding = (
  name: string,
  resource: { apiVersion: string; kind: string; name: string; namespace?: string },
  clusters: Array<{ name: string; replicas?: number }>,
  annotations?: Record<string, string>,
): StoredObject => ({
  apiVersion: 'work.karmada.io/v1alpha2',
  kind: 'ResourceBinding',
  metadata: { name, namespace: 'shop', ...(annotations ? { annotations } : {}) },
  spec: { resource: { namespace: 'shop', ...resource }, clusters },
});

const hpa = (name: string, target: string): StoredObject => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name, namespace: 'shop' },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target },
    minReplicas: 1,
    maxReplicas: 10,
  },
});

const store = (objects: StoredObject[]) => (ref: { kind: string; namespace: string; name: string }) =>
  objects.find(
    (o) => o.kind === ref.kind && (o.metadata.namespace ?? '') === ref.namespace && o.metadata.name === ref.name,
  );

describe('memberManifest', () => {
  it('keeps the template without status and server metadata, with the cluster replicas and the marks', () => {
    const m = memberManifest(
      deployment('web'),
      { kind: 'ResourceBinding', namespace: 'shop', name: 'web-deployment' },
      2,
    );
    expect(m).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'web',
        namespace: 'shop',
        labels: { app: 'web', [MemberMarks.managedBy]: 'flotilla' },
        annotations: { team: 'payments', [MemberMarks.binding]: 'ResourceBinding/shop/web-deployment' },
      },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { spec: { containers: [] } } },
    });
  });

  it('hashes equal manifests equally whatever the order of their fields', () => {
    const a = memberManifest(configMap('c'), { kind: 'ResourceBinding', name: 'b' }, undefined);
    const b = { ...a, metadata: { ...a.metadata } };
    expect(manifestHash(JSON.parse(JSON.stringify(b)))).toBe(manifestHash({ data: a.data, ...a } as typeof a));
    expect(manifestHash({ ...a, data: { a: '2' } })).not.toBe(manifestHash(a));
  });
});

describe('desiredMemberObjects', () => {
  it("takes each binding's replicas for this cluster, and leaves templates without replicas as they are", () => {
    const d = desiredMemberObjects({
      cluster: 'member1',
      bindings: [
        binding('web-deployment', { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, [
          { name: 'member1', replicas: 2 },
          { name: 'member2', replicas: 1 },
        ]),
        binding('cfg-configmap', { apiVersion: 'v1', kind: 'ConfigMap', name: 'cfg' }, [{ name: 'member1' }]),
        binding('other-deployment', { apiVersion: 'apps/v1', kind: 'Deployment', name: 'other' }, [
          { name: 'member2' },
        ]),
      ],
      template: store([deployment('web'), configMap('cfg'), deployment('other')]),
    });
    expect(
      d.objects.map((o) => [
        o.ref.kind,
        o.ref.name,
        o.replicas,
        (o.manifest.spec as { replicas?: number } | undefined)?.replicas,
      ]),
    ).toEqual([
      ['ConfigMap', 'cfg', undefined, undefined],
      ['Deployment', 'web', 2, 2],
    ]);
    expect([...d.assigned.keys()]).toEqual([
      'ResourceBinding/shop/cfg-configmap',
      'ResourceBinding/shop/web-deployment',
    ]);
    expect([...d.namespaces]).toEqual(['shop']);
  });

  it('a Duplicated binding without per-cluster replicas gives the template its own replicas', () => {
    const d = desiredMemberObjects({
      cluster: 'member1',
      bindings: [
        binding('web-deployment', { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, [{ name: 'member1' }]),
      ],
      template: store([deployment('web', 5)]),
    });
    expect(d.objects[0]!.replicas).toBe(5);
  });

  it("one cache for every cluster: a binding's clusters assigned alike make and hash its manifest once", () => {
    const manifests = new ManifestCache();
    let made = 0;
    const cache = {
      hash: (...args: Parameters<ManifestCache['hash']>) => {
        const out = manifests.hash(...args);
        if (out.made) made++;
        return out;
      },
    } as ManifestCache;
    const web = binding('web-deployment', { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, [
      { name: 'member1', replicas: 2 },
      { name: 'member2', replicas: 2 },
      { name: 'member3', replicas: 1 },
    ]);
    const template = store([deployment('web')]);
    const desired = ['member1', 'member2', 'member3'].map(
      (cluster) => desiredMemberObjects({ cluster, bindings: [web], template, manifests: cache }).objects[0]!,
    );
    // member2's manifest is member1's: made and hashed once; member3's has other replicas.
    expect(made).toBe(2);
    expect(desired[1]!.hash).toBe(desired[0]!.hash);
    expect(desired[2]!.hash).not.toBe(desired[0]!.hash);
    // The hash is the manifest's own, wherever it was made.
    for (const d of desired) expect(d.hash).toBe(manifestHash(d.manifest));
  });

  it('reports a missing template and a malformed resource as problems of the binding', () => {
    const d = desiredMemberObjects({
      cluster: 'member1',
      bindings: [
        binding('gone-deployment', { apiVersion: 'apps/v1', kind: 'Deployment', name: 'gone' }, [{ name: 'member1' }]),
        { ...binding('x', { apiVersion: '', kind: 'Deployment', name: 'x' }, [{ name: 'member1' }]) },
      ],
      template: store([]),
    });
    expect(d.objects).toEqual([]);
    expect(d.assigned.get('ResourceBinding/shop/gone-deployment')?.problem).toBe(
      'the resource template Deployment shop/gone does not exist',
    );
    expect(d.assigned.get('ResourceBinding/shop/x')?.problem).toBe('spec.resource: expected apiVersion, kind and name');
  });

  it("a member HPA gets this cluster's min/max, and its target's replicas are left to it (karmada#1273, #4109)", () => {
    const limits = JSON.stringify({
      member1: { minReplicas: 2, maxReplicas: 6 },
      member2: { minReplicas: 1, maxReplicas: 4 },
    });
    const d = desiredMemberObjects({
      cluster: 'member1',
      bindings: [
        binding('web-deployment', { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, [
          { name: 'member1', replicas: 3 },
        ]),
        binding(
          'web-hpa',
          { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', name: 'web' },
          [{ name: 'member1' }],
          { 'autoscaling.flotilla.io/member-limits': limits },
        ),
      ],
      template: store([deployment('web'), hpa('web', 'web')]),
    });
    const h = d.objects.find((o) => o.ref.kind === 'HorizontalPodAutoscaler')!;
    expect(h.manifest.spec).toMatchObject({ minReplicas: 2, maxReplicas: 6 });
    expect(h.replicas).toBeUndefined();
    const w = d.objects.find((o) => o.ref.kind === 'Deployment')!;
    expect(w.hpaOwnsReplicas).toBe(true);
    expect(w.replicas).toBe(3);
    expect(w.manifest.spec).not.toHaveProperty('replicas');
  });

  it('a bad member-limits annotation is a problem of the HPA binding, naming the field', () => {
    const d = desiredMemberObjects({
      cluster: 'member1',
      bindings: [
        binding(
          'web-hpa',
          { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', name: 'web' },
          [{ name: 'member1' }],
          { 'autoscaling.flotilla.io/member-limits': '{"member1":{"minReplicas":-1,"maxReplicas":2}}' },
        ),
      ],
      template: store([hpa('web', 'web')]),
    });
    expect(d.assigned.get('ResourceBinding/shop/web-hpa')?.problem).toBe(
      'metadata.annotations["autoscaling.flotilla.io/member-limits"].member1.minReplicas: expected an integer >= 0, got -1',
    );
  });
});

describe('planApply', () => {
  const desired = desiredMemberObjects({
    cluster: 'm',
    bindings: [
      binding('web-deployment', { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, [
        { name: 'm', replicas: 2 },
      ]),
      binding('cfg-configmap', { apiVersion: 'v1', kind: 'ConfigMap', name: 'cfg' }, [{ name: 'm' }]),
    ],
    template: store([deployment('web'), configMap('cfg')]),
  }).objects;
  const web = desired.find((d) => d.ref.kind === 'Deployment')!;
  const cfg = desired.find((d) => d.ref.kind === 'ConfigMap')!;
  const observed = (...o: ObservedObject[]) => new Map(o.map((x) => [memberKey(x.ref), x]));

  it('creates what is missing, stamped with the hash of what it applies', () => {
    const plan = planApply(desired, observed());
    expect(plan.actions.map((a) => (a.type === 'apply' ? [a.reason, a.object.ref.name] : a))).toEqual([
      ['create', 'cfg'],
      ['create', 'web'],
    ]);
    const first = plan.actions[1]!;
    expect(first.type === 'apply' && first.manifest.metadata.annotations?.[MemberMarks.appliedHash]).toBe(web.hash);
  });

  it('applies nothing when the cluster has what was last applied; updates what changed', () => {
    const plan = planApply(
      desired,
      observed(
        { ref: web.ref, binding: 'ResourceBinding/shop/web-deployment', appliedHash: web.hash, replicas: 2 },
        { ref: cfg.ref, binding: 'ResourceBinding/shop/cfg-configmap', appliedHash: 'older' },
      ),
    );
    expect(plan.actions.map((a) => (a.type === 'apply' ? [a.reason, a.object.ref.name] : a))).toEqual([
      ['update', 'cfg'],
    ]);
    expect(plan.conflicts).toEqual([]);
  });

  it('never touches an object Flotilla did not create: it is a conflict, reported', () => {
    const plan = planApply(desired, observed({ ref: cfg.ref }));
    expect(plan.actions.map((a) => a.type === 'apply' && a.object.ref.name)).toEqual(['web']);
    expect(plan.conflicts.map((c) => c.message)).toEqual([
      'ConfigMap shop/cfg already exists in the member cluster and was not created by Flotilla: left unchanged',
    ]);
    const other = planApply(desired, observed({ ref: cfg.ref, binding: 'ResourceBinding/shop/another' }));
    expect(other.conflicts.map((c) => c.message)).toEqual([
      'ConfigMap shop/cfg in the member cluster belongs to binding ResourceBinding/shop/another: left unchanged',
    ]);
  });

  it("removes what Flotilla created and nothing assigns any more; leaves everyone else's objects", () => {
    const old = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'old' };
    const theirs = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'theirs' };
    const plan = planApply([], observed({ ref: old, binding: 'ResourceBinding/shop/old-deployment' }, { ref: theirs }));
    expect(plan.actions).toEqual([{ type: 'delete', ref: old, binding: 'ResourceBinding/shop/old-deployment' }]);
  });

  it('a workload whose replicas a member HPA owns is applied with the replicas the cluster has', () => {
    const owned = { ...web, hpaOwnsReplicas: true, manifest: { ...web.manifest, spec: { selector: {} } }, hash: 'h2' };
    const create = planApply([owned], observed());
    expect(create.actions[0]!.type === 'apply' && create.actions[0]!.manifest.spec).toEqual({
      selector: {},
      replicas: 2,
    });
    // what the cluster has: the HPA's replicas, and the assignment marked at the last apply
    const had = (replicas: number, assignedReplicas: number) =>
      observed({
        ref: web.ref,
        binding: 'ResourceBinding/shop/web-deployment',
        appliedHash: 'h1',
        replicas,
        assignedReplicas,
      });
    const specOf = (plan: ReturnType<typeof planApply>) =>
      plan.actions[0]!.type === 'apply' ? plan.actions[0]!.manifest.spec : undefined;
    expect(specOf(planApply([owned], had(7, 2)))).toEqual({ selector: {}, replicas: 7 });
    // the binding assigns 0 where it assigned 2 (a FederatedHPA scaling the cluster to zero): 0 is written, over
    // the HPA's 7; and a workload at 0 is brought back to what the binding assigns again
    expect(specOf(planApply([{ ...owned, replicas: 0 }], had(7, 2)))).toEqual({ selector: {}, replicas: 0 });
    expect(specOf(planApply([owned], had(0, 0)))).toEqual({ selector: {}, replicas: 2 });
    // the HPA changing replicas changes nothing Flotilla compares: no write
    expect(
      planApply(
        [owned],
        observed({ ref: web.ref, binding: 'ResourceBinding/shop/web-deployment', appliedHash: 'h2', replicas: 9 }),
      ).actions,
    ).toEqual([]);
  });
});
