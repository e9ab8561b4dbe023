import { describe, expect, it } from 'vitest';
import { admit } from './admission.js';
import { AdmissionError, InvalidRequestError, type FieldError } from './errors.js';
import type { ScheduleChecks } from './kinds/kind-admission.js';
import { parseManifests } from './manifests.js';
import { manifestError } from './manifests.test.js';
import { MAX_NESTING_DEPTH } from './input-shape.js';
import { parseObjectQuery } from './object-query.js';
import { applyStatusPatch } from './status-patch.js';

function causesOf(input: unknown, schedules?: ScheduleChecks): FieldError[] {
  try {
    admit(input, schedules ? { schedules } : {});
  } catch (err) {
    if (err instanceof AdmissionError) return err.causes;
    throw err;
  }
  throw new Error('expected an AdmissionError, but the object was admitted');
}

function queryCauses(body: unknown, name: 'required' | 'optional'): FieldError[] {
  try {
    parseObjectQuery(body, { name });
  } catch (err) {
    if (err instanceof InvalidRequestError) return err.causes;
    throw err;
  }
  throw new Error('expected an InvalidRequestError, but the query was accepted');
}

const deployment = (name = 'shop', namespace: unknown = 'default', spec: Record<string, unknown> = {}): Workload => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: 'shop' } },
    template: { metadata: { labels: { app: 'shop' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    ...spec,
  },
});

/** A Deployment as the tests mutate it: any field may be set to anything. */
interface Workload {
  apiVersion: string;
  kind: string;
  metadata: Record<string, unknown>;
  spec: Record<string, unknown> & { template: { metadata: Record<string, unknown>; [k: string]: unknown } };
}

const nested = (depth: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};

/** Names Kubernetes refuses; each reached a KV key or a NATS subject before it was checked. */
const BAD_NAMES: Array<[title: string, name: string]> = [
  ['non-ASCII letter', 'nginx-ü'],
  ['emoji', '🚀'],
  ['empty', ''],
  ['empty DNS label', 'a..b'],
  ['leading dot', '.hidden'],
  ['subject wildcards', 'a.*.>'],
  ['non-UTF-8 bytes (decoded to U+FFFD)', Buffer.from([0x61, 0xff, 0xfe]).toString('utf8')],
];

describe('object queries (get, list, delete, events): names are checked before any key is built', () => {
  it.each(BAD_NAMES)('rejects the name %s', (_title, name) => {
    expect(queryCauses({ kind: 'deploy', name }, 'required')).toEqual([
      { field: 'name', message: expect.stringMatching(/Invalid value|Required value/) },
    ]);
  });

  it.each<[title: string, namespace: unknown]>([
    ['path traversal', '../etc'],
    ['every namespace as a wildcard', '*'],
    ['subject wildcard', '>'],
    ['upper case', 'Default'],
    ['a number', 7],
  ])('rejects the namespace %s', (_title, namespace) => {
    expect(queryCauses({ kind: 'deploy', namespace }, 'optional')).toEqual([
      { field: 'namespace', message: expect.stringMatching(/Invalid value/) },
    ]);
  });

  it.each<[title: string, kind: unknown, message: RegExp]>([
    ['a number', 123, /expected string, got number 123/],
    ['an object', { a: 1 }, /expected string, got object/],
    ['missing', undefined, /Required value/],
    ['a wildcard', '*', /unknown resource type "\*"/],
  ])('rejects the kind %s, naming the field instead of failing inside', (_title, kind, message) => {
    expect(queryCauses({ kind, name: 'web' }, 'required')).toEqual([
      { field: 'kind', message: expect.stringMatching(message) },
    ]);
  });

  it('applies the kind’s own name rule: a Cluster name is a DNS-1123 label', () => {
    expect(queryCauses({ kind: 'cluster', name: 'a.b' }, 'required')).toEqual([
      { field: 'name', message: expect.stringContaining('RFC 1123 label') },
    ]);
    expect(parseObjectQuery({ kind: 'deploy', name: 'a.b' }, { name: 'required' }).name).toBe('a.b');
  });

  it('resolves a good query; "" and an absent namespace both mean "not given"; cluster-scoped kinds drop it', () => {
    expect(parseObjectQuery({ kind: 'deploy', name: 'web', namespace: 'prod' }, { name: 'required' })).toMatchObject({
      info: { kind: 'Deployment' },
      namespace: 'prod',
      name: 'web',
    });
    expect(parseObjectQuery({ kind: 'deploy', namespace: '' }, { name: 'optional' }).namespace).toBeUndefined();
    expect(parseObjectQuery({ kind: 'cluster', name: 'm1', namespace: 'x' }, { name: 'required' }).namespace).toBe(
      undefined,
    );
  });
});

describe('admission: names and namespaces', () => {
  it.each(BAD_NAMES.filter(([, n]) => n !== ''))('rejects metadata.name %s', (_title, name) => {
    expect(causesOf(deployment(name)).map((c) => c.field)).toEqual(['metadata.name']);
  });
  it.each(['../etc', '*', 'a.*.>'])('rejects metadata.namespace %j', (namespace) => {
    expect(causesOf(deployment('shop', namespace)).map((c) => c.field)).toEqual(['metadata.namespace']);
  });
});

describe('map keys that name Object.prototype members', () => {
  it.each([
    ['a label', (o: Workload) => (o.metadata.labels = JSON.parse('{"__proto__": "x"}')), 'metadata.labels[__proto__]'],
    [
      'an annotation',
      (o: Workload) => (o.metadata.annotations = JSON.parse('{"__proto__": "x"}')),
      'metadata.annotations[__proto__]',
    ],
    [
      'a spec field',
      (o: Workload) => (o.spec.extra = JSON.parse('{"__proto__": {"polluted": true}}')),
      'spec.extra[__proto__]',
    ],
    [
      'a template label',
      (o: Workload) => (o.spec.template.metadata.labels = JSON.parse('{"__proto__": "x", "app": "shop"}')),
      'spec.template.metadata.labels[__proto__]',
    ],
  ])('rejects __proto__ as %s with its field path', (_title, mutate, field) => {
    const o = deployment();
    mutate(o);
    expect(causesOf(o)).toContainEqual({ field, message: expect.stringContaining('Forbidden') });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('stores constructor and prototype as plain label keys', () => {
    const o = deployment();
    (o.metadata as Record<string, unknown>).labels = { constructor: 'a', prototype: 'b' };
    const admitted = admit(o);
    expect(admitted.metadata.labels).toEqual({ constructor: 'a', prototype: 'b' });
    expect(Object.getPrototypeOf(admitted.metadata.labels)).toBe(Object.prototype);
  });

  it('YAML parsing keeps __proto__ as an own key (admission then rejects it) and pollutes nothing', () => {
    const text = 'metadata:\n  labels:\n    __proto__: {polluted: yes}\n    constructor: y\n';
    const [doc] = parseManifests(text) as Array<{ metadata: { labels: object } }>;
    expect(Object.keys(doc!.metadata.labels)).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(doc!.metadata.labels)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a status patch with __proto__, constructor and prototype keys sets own fields only', () => {
    const next = applyStatusPatch(
      { a: 1 },
      JSON.parse('{"__proto__": {"polluted": 1}, "constructor": 2, "prototype": 3}'),
      'now',
    );
    expect(Object.getPrototypeOf(next)).toBe(Object.prototype);
    expect(Object.keys(next).sort()).toEqual(['__proto__', 'a', 'constructor', 'prototype']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('clear errors instead of crashes or wrong words', () => {
  it('3,000 levels of nesting is refused with the depth, not a stack overflow', () => {
    const causes = causesOf(deployment('shop', 'default', { deep: nested(3000) }));
    expect(causes).toEqual([
      {
        field: expect.stringMatching(/^spec\.deep(\.a)+$/),
        message: expect.stringContaining(`${MAX_NESTING_DEPTH} levels`),
      },
    ]);
  });

  it('nesting at the limit is admitted', () => {
    expect(() => admit(deployment('shop', 'default', { deep: nested(MAX_NESTING_DEPTH - 3) }))).not.toThrow();
  });

  it.each<[title: string, value: number, message: string]>([
    ['NaN', Number.NaN, 'NaN'],
    ['Infinity (1e309 in JSON)', JSON.parse('1e309') as number, 'Infinity'],
    ['-Infinity', Number.NEGATIVE_INFINITY, '-Infinity'],
  ])('%s is named as such, not "got null"', (_title, replicas, message) => {
    expect(causesOf(deployment('shop', 'default', { replicas }))).toEqual([
      { field: 'spec.replicas', message: expect.stringContaining(message) },
    ]);
  });

  it.each<[title: string, value: number]>([
    ['2^53+1', 2 ** 53 + 1],
    ['2^31', 2 ** 31],
  ])('an int32 field over 2^31-1 (%s) is checked against int32', (_title, replicas) => {
    expect(causesOf(deployment('shop', 'default', { replicas }))).toEqual([
      { field: 'spec.replicas', message: expect.stringContaining('must be less than or equal to 2147483647') },
    ]);
  });

  it('a CronFederatedHPA with a bad schedule, time zone and replica count reports all three', () => {
    const schedules: ScheduleChecks = {
      scheduleError: (e) => (e === 'not a cron' ? 'Invalid value: "not a cron": bad schedule' : undefined),
      timeZoneError: (z) => (z === 'Mars/Olympus' ? `Invalid value: "${z}": unknown time zone` : undefined),
      excludeDateError: () => undefined,
    };
    const cron = {
      apiVersion: 'autoscaling.karmada.io/v1alpha1',
      kind: 'CronFederatedHPA',
      metadata: { name: 'shop-cron', namespace: 'default' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop' },
        rules: [{ name: 'up', schedule: 'not a cron', timeZone: 'Mars/Olympus', targetReplicas: -1 }],
      },
    };
    expect(
      causesOf(cron, schedules)
        .map((c) => c.field)
        .sort(),
    ).toEqual(['spec.rules[0].schedule', 'spec.rules[0].targetReplicas', 'spec.rules[0].timeZone']);
  });
});

describe('YAML that JSON cannot carry', () => {
  it.each<[title: string, text: string, path: string]>([
    ['.nan', 'kind: Deployment\nspec:\n  replicas: .nan\n', 'spec.replicas'],
    ['.inf', 'kind: Deployment\nspec:\n  replicas: .inf\n', 'spec.replicas'],
    ['1e309', 'kind: Deployment\nspec:\n  rules:\n  - n: 1e309\n', 'spec.rules[0].n'],
  ])('%s is refused in the document it appears in, naming the field', (_title, text, path) => {
    const err = manifestError(`kind: ConfigMap\n---\n${text}`);
    expect(err.document).toBe(2);
    expect(err.message).toContain(path);
  });

  it('3,000 levels of flow nesting is a ManifestError, not a stack overflow', () => {
    const err = manifestError(`kind: X\nspec: ${'{a: '.repeat(3000)}1${'}'.repeat(3000)}\n`);
    expect(err.message).toMatch(/nest/);
  });
});

describe('workload templates are validated where Flotilla reads them', () => {
  const cases: Array<[title: string, spec: Record<string, unknown>, field: string]> = [
    ['missing selector', { selector: undefined }, 'spec.selector'],
    ['missing template', { template: undefined }, 'spec.template'],
    ['empty selector', { selector: {} }, 'spec.selector'],
    [
      'selector not matching the template labels',
      { selector: { matchLabels: { app: 'other' } } },
      'spec.template.metadata.labels',
    ],
    [
      'template.spec not an object',
      { template: { metadata: { labels: { app: 'shop' } }, spec: 'nginx' } },
      'spec.template.spec',
    ],
    [
      'containers not an array',
      { template: { metadata: { labels: { app: 'shop' } }, spec: { containers: { name: 'c' } } } },
      'spec.template.spec.containers',
    ],
    [
      'no containers',
      { template: { metadata: { labels: { app: 'shop' } }, spec: { containers: [] } } },
      'spec.template.spec.containers',
    ],
    [
      'a request that is no quantity',
      {
        template: {
          metadata: { labels: { app: 'shop' } },
          spec: { containers: [{ name: 'c', resources: { requests: { cpu: 'lots' } } }] },
        },
      },
      'spec.template.spec.containers[0].resources.requests.cpu',
    ],
    ['matchLabels not a map', { selector: { matchLabels: ['app'] } }, 'spec.selector.matchLabels'],
  ];
  it.each(['Deployment', 'StatefulSet'])('the base %s is admitted, with unknown fields kept', (kind) => {
    const o = { ...deployment('shop', 'default', { strategy: { anything: 1 } }), kind };
    expect(admit(o).spec).toMatchObject({ strategy: { anything: 1 } });
  });
  it.each(cases)('%s', (_title, spec, field) => {
    const o = deployment('shop', 'default', spec);
    for (const [k, v] of Object.entries(spec)) if (v === undefined) delete (o.spec as Record<string, unknown>)[k];
    expect(causesOf(o).map((c) => c.field)).toContain(field);
    expect(causesOf({ ...o, kind: 'StatefulSet' }).map((c) => c.field)).toContain(field);
  });
  it('other kinds stay loose: a ConfigMap with any data is admitted', () => {
    expect(() =>
      admit({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' }, other: [1] }),
    ).not.toThrow();
  });
});
