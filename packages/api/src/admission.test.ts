import { describe, expect, it } from 'vitest';
import { admit, MAX_OBJECT_BYTES, validateUpdate } from './admission.js';
import { AdmissionError, type FieldError } from './errors.js';
import type { KubeObject } from './object.js';

/** The causes admission gives for `input` (fails the test when it is admitted). */
export function causesOf(input: unknown, existing?: KubeObject): FieldError[] {
  try {
    admit(input, existing ? { existing } : {});
  } catch (err) {
    if (err instanceof AdmissionError) return err.causes;
    throw err;
  }
  throw new Error('expected an AdmissionError, but the object was admitted');
}

const deployment = (over: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'shop' },
  spec: { replicas: 3, selector: { matchLabels: { app: 'shop' } } },
  ...over,
});

const pp = (placement: unknown = { clusterAffinity: { clusterNames: ['m1'] } }) => ({
  apiVersion: 'policy.karmada.io/v1alpha1',
  kind: 'PropagationPolicy',
  metadata: { name: 'p', namespace: 'ns1' },
  spec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop' }], placement },
});

describe('admit: envelope', () => {
  it.each([
    [null, 'got null'],
    [[], 'got array'],
    ['apiVersion: v1', 'got string'],
    [42, 'got number'],
  ])('rejects a non-object %j', (input, msg) => {
    const causes = causesOf(input);
    expect(causes).toEqual([{ field: '', message: expect.stringContaining(msg) }]);
    expect(() => admit(input)).toThrow(/^Object is invalid: Invalid value: an object must be a mapping/);
  });

  it('rejects missing apiVersion and kind, naming both', () => {
    expect(causesOf({ metadata: { name: 'x' } })).toEqual([
      { field: 'apiVersion', message: 'Required value' },
      { field: 'kind', message: 'Required value' },
    ]);
    expect(causesOf({ apiVersion: 1, kind: ['Deployment'], metadata: { name: 'x' } })).toEqual([
      { field: 'apiVersion', message: 'Invalid value: expected string, got number' },
      { field: 'kind', message: 'Invalid value: expected string, got array' },
    ]);
  });

  it('rejects an unknown kind, pointing at how to find valid kinds', () => {
    const causes = causesOf({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'x' },
      spec: { replicas: 2 },
    });
    expect(causes).toHaveLength(1);
    expect(causes[0]!.field).toBe('kind');
    expect(causes[0]!.message).toMatch(/unknown kind "ReplicaSet" in version "apps\/v1": valid kinds are Cluster, /);
    expect(() => admit({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'x' } })).toThrow(
      /^ReplicaSet "x" is invalid: kind: /,
    );
  });

  it('rejects a wrong apiVersion for a known kind', () => {
    expect(causesOf(deployment({ apiVersion: 'apps/v2' }))).toEqual([
      {
        field: 'apiVersion',
        message: 'Invalid value: apiVersion "apps/v2" is not served for kind Deployment; use apps/v1',
      },
    ]);
  });

  it('rejects an object larger than MAX_OBJECT_BYTES', () => {
    const big = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'big' },
      data: { blob: 'x'.repeat(MAX_OBJECT_BYTES) },
    };
    const causes = causesOf(big);
    expect(causes).toEqual([
      { field: '', message: expect.stringMatching(/^Too long: the object is \d+ bytes of JSON, the limit is 921600$/) },
    ]);
    expect(MAX_OBJECT_BYTES).toBe(900 * 1024);
  });
});

describe('admit: metadata', () => {
  it('defaults the namespace of a namespaced kind and leaves the input untouched', () => {
    const input = deployment();
    const out = admit(input);
    expect(out.metadata.namespace).toBe('default');
    expect((input.metadata as { namespace?: string }).namespace).toBeUndefined();
  });

  it('keeps a given namespace and treats "" as absent', () => {
    expect(admit(deployment({ metadata: { name: 'shop', namespace: 'prod' } })).metadata.namespace).toBe('prod');
    expect(admit(deployment({ metadata: { name: 'shop', namespace: '' } })).metadata.namespace).toBe('default');
  });

  it('rejects a namespace on a cluster-scoped kind', () => {
    const c = {
      apiVersion: 'cluster.karmada.io/v1alpha1',
      kind: 'Cluster',
      metadata: { name: 'm1', namespace: 'default' },
      spec: { syncMode: 'Push' },
    };
    expect(causesOf(c)).toEqual([
      { field: 'metadata.namespace', message: 'Forbidden: Cluster is cluster-scoped, it must not have a namespace' },
    ]);
  });

  it.each([
    [{ namespace: 'x' }, 'metadata.name', 'Required value'],
    [{ name: '' }, 'metadata.name', 'Required value: must not be empty'],
    [{ name: 7 }, 'metadata.name', 'Invalid value: expected string, got number 7'],
    [{ name: 'Shop_1' }, 'metadata.name', 'Invalid value: "Shop_1": a lowercase RFC 1123 subdomain'],
    [{ name: 'a'.repeat(254) }, 'metadata.name', 'must be no more than 253 characters'],
    [{ name: 'shop', namespace: 'My.NS' }, 'metadata.namespace', 'Invalid value: "My.NS": a lowercase RFC 1123 label'],
    [{ name: 'shop', labels: { 'bad key!': 'v' } }, 'metadata.labels[bad key!]', 'Invalid value: "bad key!"'],
    [{ name: 'shop', labels: { app: 'no spaces' } }, 'metadata.labels.app', 'Invalid value: "no spaces"'],
    [{ name: 'shop', labels: { app: 3 } }, 'metadata.labels.app', 'Invalid value: expected string, got number 3'],
    [{ name: 'shop', annotations: { '/x': 'v' } }, 'metadata.annotations[/x]', 'prefix part must be non-empty'],
    [{ name: 'shop', generation: -1 }, 'metadata.generation', 'must be greater than or equal to 0'],
    [{ name: 'shop', creationTimestamp: 'yesterday' }, 'metadata.creationTimestamp', 'Invalid value'],
    [{ name: 'shop', foo: 1 }, 'metadata.foo', 'unknown field "foo"'],
  ])('rejects metadata %j at %s', (metadata, field, message) => {
    const causes = causesOf(deployment({ metadata }));
    expect(causes).toContainEqual({ field, message: expect.stringContaining(message) });
  });

  it('accepts what kubectl prints: uid, resourceVersion, managedFields, ownerReferences, creationTimestamp null', () => {
    const out = admit(
      deployment({
        metadata: {
          name: 'shop',
          namespace: 'default',
          uid: 'u-1',
          resourceVersion: '42',
          generation: 3,
          creationTimestamp: null,
          labels: { 'app.kubernetes.io/name': 'shop' },
          annotations: { 'deployment.kubernetes.io/revision': '1' },
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: 'u-0', controller: true }],
          finalizers: ['example.com/f'],
          managedFields: [{ manager: 'kubectl', operation: 'Apply' }],
        },
      }),
    );
    expect(out.metadata.creationTimestamp).toBeUndefined();
    expect(out.metadata.uid).toBe('u-1');
  });
});

describe('admit: generic templates', () => {
  it.each([
    [-1, 'Invalid value: number -1: must be greater than or equal to 0'],
    [1.5, 'Invalid value: expected integer, got number 1.5'],
    ['3', 'Invalid value: expected number, got string "3"'],
    [2 ** 31, 'Invalid value: number 2147483648: must be less than or equal to 2147483647'],
  ])('rejects spec.replicas %j', (replicas, message) => {
    expect(causesOf(deployment({ spec: { replicas } }))).toEqual([{ field: 'spec.replicas', message }]);
  });

  it('accepts any other spec and top-level fields as given, and keeps status', () => {
    const input = deployment({
      spec: { replicas: 0, strategy: { type: 'Recreate' }, whatever: [1] },
      status: { readyReplicas: 2 },
    });
    const out = admit(input);
    expect(out).toEqual({ ...input, metadata: { name: 'shop', namespace: 'default' } });
    const cm = admit({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
      data: { a: 'b' },
      immutable: true,
    });
    expect((cm as unknown as { data: unknown }).data).toEqual({ a: 'b' });
  });
});

describe('admit: strict kinds', () => {
  it('names unknown fields at any depth', () => {
    expect(causesOf({ ...pp({ clusterAffinity: { clusterNames: ['m1'] }, foo: 1 }), spek: {} })).toEqual([
      { field: 'spec.placement.foo', message: 'unknown field "foo"' },
      { field: 'spek', message: 'unknown field "spek"' },
    ]);
  });

  it('names wrong types and missing required fields', () => {
    const bad = pp();
    (bad.spec as Record<string, unknown>).priority = 'high';
    (bad.spec as Record<string, unknown>).resourceSelectors = [{ apiVersion: 'apps/v1' }];
    expect(causesOf(bad)).toEqual([
      { field: 'spec.resourceSelectors[0].kind', message: 'Required value' },
      { field: 'spec.priority', message: 'Invalid value: expected number, got string "high"' },
    ]);
  });
});

describe('validateUpdate', () => {
  const rb = (name: string, uid = 'u1'): KubeObject => ({
    apiVersion: 'work.karmada.io/v1alpha2',
    kind: 'ResourceBinding',
    metadata: { name: 'shop-deployment', namespace: 'default', uid },
    spec: { resource: { apiVersion: 'apps/v1', kind: 'Deployment', name, namespace: 'default' } },
  });

  it('accepts an unchanged identity', () => {
    expect(validateUpdate(rb('shop'), rb('shop'))).toEqual([]);
    expect(admit(rb('shop'), { existing: rb('shop') }).metadata.name).toBe('shop-deployment');
  });

  it('rejects a changed uid, name, namespace or kind', () => {
    const old = admit(deployment({ metadata: { name: 'shop', uid: 'a' } }));
    expect(validateUpdate(old, { ...old, metadata: { ...old.metadata, uid: 'b' } })).toEqual([
      { field: 'metadata.uid', message: 'Invalid value: "b": field is immutable' },
    ]);
    expect(validateUpdate(old, { ...old, metadata: { ...old.metadata, name: 'web' } })[0]!.field).toBe('metadata.name');
    expect(validateUpdate(old, { ...old, metadata: { ...old.metadata, namespace: 'x' } })[0]!.field).toBe(
      'metadata.namespace',
    );
    expect(validateUpdate(old, { ...old, kind: 'StatefulSet' })[0]!.field).toBe('kind');
  });

  it('keeps a binding pointing at the same resource', () => {
    expect(causesOf(rb('web'), rb('shop'))).toEqual([
      {
        field: 'spec.resource',
        message: 'Invalid value: field is immutable: a binding always refers to the same resource',
      },
    ]);
  });
});
