import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { admit } from './admission.js';
import { AdmissionError } from './errors.js';
import {
  DEFAULT_RESERVED_NAMESPACES,
  ReservedNamespaceEntryError,
  ReservedNamespaces,
  reservedNamespacesEnv,
} from './reserved-namespaces.js';

const spec = {
  replicas: 2,
  selector: { matchLabels: { app: 'web' } },
  template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'web:1' }] } },
};
const policySpec = {
  resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }],
  placement: { clusterAffinity: { clusterNames: ['member1'] } },
};
const scaleTargetRef = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };

/** One object of each namespaced kind a user writes, in `namespace` (undefined: none given). */
const objects = (namespace: string | undefined): Array<[string, Record<string, unknown>]> => {
  const metadata = { name: 'web', ...(namespace === undefined ? {} : { namespace }) };
  return [
    ['Deployment', { apiVersion: 'apps/v1', kind: 'Deployment', metadata, spec }],
    ['StatefulSet', { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata, spec }],
    ['ConfigMap', { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { a: 'b' } }],
    [
      'PropagationPolicy',
      { apiVersion: 'policy.karmada.io/v1alpha1', kind: 'PropagationPolicy', metadata, spec: policySpec },
    ],
    [
      'FederatedHPA',
      {
        apiVersion: 'autoscaling.karmada.io/v1alpha1',
        kind: 'FederatedHPA',
        metadata,
        spec: { scaleTargetRef, minReplicas: 1, maxReplicas: 4 },
      },
    ],
    [
      'CronFederatedHPA',
      {
        apiVersion: 'autoscaling.karmada.io/v1alpha1',
        kind: 'CronFederatedHPA',
        metadata,
        spec: { scaleTargetRef, rules: [{ name: 'up', schedule: '0 8 * * *', targetReplicas: 3 }] },
      },
    ],
    [
      'EffectiveHorizontalPodAutoscaler',
      {
        apiVersion: 'autoscaling.crane.io/v1alpha1',
        kind: 'EffectiveHorizontalPodAutoscaler',
        metadata,
        spec: { scaleTargetRef, minReplicas: 1, maxReplicas: 4 },
      },
    ],
  ];
};

const refusal = (ns: string, entries = 'kube-*, flotilla-system') =>
  `metadata.namespace: Forbidden: namespace "${ns}" is reserved (${entries}): Flotilla does not propagate from or into it`;

function admissionMessage(input: unknown, reserved?: ReservedNamespaces): string | undefined {
  try {
    admit(input, reserved ? { reservedNamespaces: reserved } : {});
    return undefined;
  } catch (err) {
    if (err instanceof AdmissionError) return err.message;
    throw err;
  }
}

describe('admission refuses reserved namespaces', () => {
  const cases: Array<[string, string | undefined, ReservedNamespaces | undefined, string | undefined]> = [
    ['kube-system', 'kube-system', undefined, refusal('kube-system')],
    ['kube-public', 'kube-public', undefined, refusal('kube-public')],
    ['kube-node-lease', 'kube-node-lease', undefined, refusal('kube-node-lease')],
    ['flotilla-system', 'flotilla-system', undefined, refusal('flotilla-system')],
    ['default (given)', 'default', undefined, undefined],
    ['default (defaulted)', undefined, undefined, undefined],
    ['a namespace that only contains "kube"', 'my-kube-system', undefined, undefined],
    ['"kube" without the dash', 'kubeflow', undefined, undefined],
    ['flotilla-system-2 (not a prefix entry)', 'flotilla-system-2', undefined, undefined],
    [
      'a configured name',
      'payments',
      new ReservedNamespaces(['payments', 'tenant-*']),
      refusal('payments', 'kube-*, flotilla-system, payments, tenant-*'),
    ],
    [
      'a configured prefix',
      'tenant-a',
      new ReservedNamespaces(['payments', 'tenant-*']),
      refusal('tenant-a', 'kube-*, flotilla-system, payments, tenant-*'),
    ],
    [
      'the defaults stay with a configured list',
      'kube-system',
      new ReservedNamespaces(['payments']),
      refusal('kube-system', 'kube-*, flotilla-system, payments'),
    ],
  ];
  for (const [kind] of objects('x')) {
    it.each(cases)(`${kind} in %s`, (_what, namespace, reserved, expected) => {
      const object = objects(namespace).find(([k]) => k === kind)![1];
      const message = admissionMessage(object, reserved);
      if (expected === undefined) expect(message).toBeUndefined();
      else expect(message).toBe(`${kind} "web" is invalid: ${expected}`);
    });
  }

  it('lists the rule beside the other errors of the object, first', () => {
    const [, bad] = objects('kube-system').find(([k]) => k === 'Deployment')!;
    const message = admissionMessage({ ...bad, spec: { ...spec, replicas: -1 } });
    expect(message).toMatch(/^Deployment "web" is invalid: metadata\.namespace: Forbidden: .*; spec\.replicas: /);
  });

  it('leaves cluster-scoped kinds alone (they have no namespace)', () => {
    const cpp = {
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'ClusterPropagationPolicy',
      metadata: { name: 'all' },
      spec: policySpec,
    };
    expect(admissionMessage(cpp)).toBeUndefined();
  });
});

describe("admission refuses a ClusterPropagationPolicy's selector in a reserved namespace", () => {
  const selector = (namespace: string | undefined) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    ...(namespace === undefined ? {} : { namespace }),
  });
  const cpp = (...namespaces: Array<string | undefined>) => ({
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'ClusterPropagationPolicy',
    metadata: { name: 'all' },
    spec: { ...policySpec, resourceSelectors: namespaces.map(selector) },
  });
  const at = (i: number, ns: string, entries?: string) =>
    refusal(ns, entries).replace('metadata.namespace', `spec.resourceSelectors[${i}].namespace`);
  const configured = new ReservedNamespaces(['payments', 'tenant-*']);
  const cases: Array<[string, Array<string | undefined>, ReservedNamespaces | undefined, string[]]> = [
    ['kube-system', ['kube-system'], undefined, [at(0, 'kube-system')]],
    ['kube-public', ['kube-public'], undefined, [at(0, 'kube-public')]],
    ['flotilla-system', ['flotilla-system'], undefined, [at(0, 'flotilla-system')]],
    ['every namespace (none named)', [undefined], undefined, []],
    ['default', ['default'], undefined, []],
    ['"kube" without the dash', ['kubeflow'], undefined, []],
    ['the second of two selectors', ['default', 'kube-node-lease'], undefined, [at(1, 'kube-node-lease')]],
    [
      'two reserved selectors, each named',
      ['kube-system', 'flotilla-system'],
      undefined,
      [at(0, 'kube-system'), at(1, 'flotilla-system')],
    ],
    ['a configured name', ['payments'], configured, [at(0, 'payments', 'kube-*, flotilla-system, payments, tenant-*')]],
    [
      'a configured prefix',
      ['tenant-a'],
      configured,
      [at(0, 'tenant-a', 'kube-*, flotilla-system, payments, tenant-*')],
    ],
    ['a configured name, not configured', ['payments'], undefined, []],
  ];
  it.each(cases)('%s', (_what, namespaces, reserved, expected) => {
    const message = admissionMessage(cpp(...namespaces), reserved);
    if (expected.length === 0) expect(message).toBeUndefined();
    else expect(message).toBe(`ClusterPropagationPolicy "all" is invalid: ${expected.join('; ')}`);
  });

  it("a PropagationPolicy's selector names only its own namespace: refused there once, at metadata.namespace", () => {
    const pp = {
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: 'web', namespace: 'kube-system' },
      spec: { ...policySpec, resourceSelectors: [selector('kube-system')] },
    };
    expect(admissionMessage(pp)).toBe(`PropagationPolicy "web" is invalid: ${refusal('kube-system')}`);
  });
});

describe('ReservedNamespaces', () => {
  it('starts from the defaults, each entry once', () => {
    expect(DEFAULT_RESERVED_NAMESPACES).toEqual(['kube-*', 'flotilla-system']);
    expect(ReservedNamespaces.defaults.entries).toEqual(DEFAULT_RESERVED_NAMESPACES);
    expect(new ReservedNamespaces(['flotilla-system', 'a', 'a']).entries).toEqual(['kube-*', 'flotilla-system', 'a']);
  });

  it.each([
    ['', []],
    [' a , b-* ,', ['a', 'b-*']],
    ['a,,b', ['a', 'b']],
  ])('parses the list %j', (raw, extra) => {
    expect(ReservedNamespaces.parse(raw).entries).toEqual([...DEFAULT_RESERVED_NAMESPACES, ...extra]);
  });

  it.each([
    ['Payments', 1],
    ['a,team_b', 2],
    ['a,b,*', 3],
    ['a*b', 1],
    [`${'a'.repeat(64)}`, 1],
  ])('refuses the list %j, naming the entry by its position', (raw, position) => {
    expect(() => ReservedNamespaces.parse(raw)).toThrow(ReservedNamespaceEntryError);
    expect(() => ReservedNamespaces.parse(raw)).toThrow(new RegExp(`^entry ${position} `));
  });

  it('is a configuration field: unset gives the defaults, a bad entry is an issue naming it', () => {
    const schema = z.object({ RESERVED_NAMESPACES: reservedNamespacesEnv });
    expect(schema.parse({}).RESERVED_NAMESPACES).toBe(ReservedNamespaces.defaults);
    expect(schema.parse({ RESERVED_NAMESPACES: 'payments' }).RESERVED_NAMESPACES.has('payments')).toBe(true);
    const bad = schema.safeParse({ RESERVED_NAMESPACES: 'ok,Bad' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]).toMatchObject({
      path: ['RESERVED_NAMESPACES'],
      message: expect.stringMatching(/^entry 2 \("Bad"\)/),
    });
  });
});
