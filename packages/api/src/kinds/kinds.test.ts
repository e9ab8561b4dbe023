import { describe, expect, it } from 'vitest';
import { admit } from '../admission.js';
import { AdmissionError, type FieldError } from '../errors.js';

function causesOf(input: unknown): FieldError[] {
  try {
    admit(input);
  } catch (err) {
    if (err instanceof AdmissionError) return err.causes;
    throw err;
  }
  throw new Error('expected an AdmissionError, but the object was admitted');
}

// biome-ignore lint/suspicious/noExplicitAny: fault cases write wrongly typed values at arbitrary paths of a manifest
type Obj = Record<string, any>;
type Case = [title: string, mutate: (o: Obj) => void, field: string, message: string];

/** Runs a table of single-fault cases against a valid base: each must yield exactly the named field error. */
function faultTable(kind: string, base: () => Obj, cases: Case[]): void {
  describe(`${kind}: bad input`, () => {
    it('the base object is admitted', () => {
      expect(() => admit(base())).not.toThrow();
    });
    it.each(cases)('%s', (_title, mutate, field, message) => {
      const o = base();
      mutate(o);
      const causes = causesOf(o);
      expect(causes).toContainEqual({ field, message: expect.stringContaining(message) });
      expect(causes.map((c) => c.field)).toEqual([field]);
    });
  });
}

const cronWorkload = (): Obj => ({
  apiVersion: 'autoscaling.karmada.io/v1alpha1',
  kind: 'CronFederatedHPA',
  metadata: { name: 'shop-cron', namespace: 'default' },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop' },
    rules: [
      { name: 'up', schedule: '30 8 * * *', targetReplicas: 10 },
      { name: 'down', schedule: '0 11 * * *', targetReplicas: 1, timeZone: 'Asia/Shanghai' },
    ],
  },
});
const cronFhpa = (): Obj => ({
  ...cronWorkload(),
  spec: {
    scaleTargetRef: { apiVersion: 'autoscaling.karmada.io/v1alpha1', kind: 'FederatedHPA', name: 'shop-fhpa' },
    rules: [{ name: 'up', schedule: '30 8 * * *', targetMinReplicas: 5, targetMaxReplicas: 20 }],
  },
});

faultTable('CronFederatedHPA (workload target)', cronWorkload, [
  ['duplicate rule name', (o) => (o.spec.rules[1].name = 'up'), 'spec.rules[1].name', 'Duplicate value: "up"'],
  ['empty rule name', (o) => (o.spec.rules[0].name = ''), 'spec.rules[0].name', 'Required value'],
  [
    'rule name over 32 characters',
    (o) => (o.spec.rules[0].name = 'r'.repeat(33)),
    'spec.rules[0].name',
    'Too long: must have at most 32 characters',
  ],
  ['missing rule name', (o) => delete o.spec.rules[0].name, 'spec.rules[0].name', 'Required value'],
  [
    'successfulHistoryLimit 0',
    (o) => (o.spec.rules[0].successfulHistoryLimit = 0),
    'spec.rules[0].successfulHistoryLimit',
    'must be greater than or equal to 1',
  ],
  [
    'successfulHistoryLimit 33',
    (o) => (o.spec.rules[0].successfulHistoryLimit = 33),
    'spec.rules[0].successfulHistoryLimit',
    'must be less than or equal to 32',
  ],
  [
    'failedHistoryLimit -1',
    (o) => (o.spec.rules[0].failedHistoryLimit = -1),
    'spec.rules[0].failedHistoryLimit',
    'must be greater than or equal to 0',
  ],
  [
    'failedHistoryLimit 33',
    (o) => (o.spec.rules[0].failedHistoryLimit = 33),
    'spec.rules[0].failedHistoryLimit',
    'must be less than or equal to 32',
  ],
  [
    'negative targetReplicas',
    (o) => (o.spec.rules[0].targetReplicas = -1),
    'spec.rules[0].targetReplicas',
    'must be greater than or equal to 0',
  ],
  [
    'workload target without targetReplicas',
    (o) => delete o.spec.rules[0].targetReplicas,
    'spec.rules[0].targetReplicas',
    'Required value: targetReplicas cannot be empty when the target is a Deployment',
  ],
  [
    'scaleTargetRef without kind',
    (o) => delete o.spec.scaleTargetRef.kind,
    'spec.scaleTargetRef.kind',
    'Required value',
  ],
  [
    'scaleTargetRef with empty name',
    (o) => (o.spec.scaleTargetRef.name = ''),
    'spec.scaleTargetRef.name',
    'Required value',
  ],
  [
    'scaleTargetRef name with a slash',
    (o) => (o.spec.scaleTargetRef.name = 'a/b'),
    'spec.scaleTargetRef.name',
    "may not contain '/'",
  ],
  [
    'schedule of the wrong type',
    (o) => (o.spec.rules[0].schedule = 5),
    'spec.rules[0].schedule',
    'expected string, got number 5',
  ],
  ['suspend of the wrong type', (o) => (o.spec.rules[0].suspend = 'yes'), 'spec.rules[0].suspend', 'expected boolean'],
  ['unknown rule field', (o) => (o.spec.rules[0].replicas = 3), 'spec.rules[0].replicas', 'unknown field "replicas"'],
  [
    'ruleName next to a different name',
    (o) => (o.spec.rules[0].ruleName = 'other'),
    'spec.rules[0].ruleName',
    'unknown field "ruleName"',
  ],
  ['rules missing', (o) => delete o.spec.rules, 'spec.rules', 'Required value'],
]);

faultTable('CronFederatedHPA (FederatedHPA target)', cronFhpa, [
  [
    'neither targetMinReplicas nor targetMaxReplicas',
    (o) => (o.spec.rules[0] = { name: 'up', schedule: '0 8 * * *', targetReplicas: 3 }),
    'spec.rules[0].targetMaxReplicas',
    'cannot both be empty',
  ],
  [
    'targetMinReplicas > targetMaxReplicas',
    (o) => (o.spec.rules[0].targetMinReplicas = 30),
    'spec.rules[0].targetMinReplicas',
    'targetMaxReplicas (20) should be larger than or equal to targetMinReplicas',
  ],
  [
    'targetMinReplicas 0',
    (o) => (o.spec.rules[0].targetMinReplicas = 0),
    'spec.rules[0].targetMinReplicas',
    'must be greater than 0',
  ],
  [
    'negative targetMaxReplicas',
    (o) => (o.spec.rules[0].targetMaxReplicas = -2),
    'spec.rules[0].targetMaxReplicas',
    'must be greater than or equal to 0',
  ],
  [
    'karmada autoscaling group with another kind',
    (o) => (o.spec.scaleTargetRef.kind = 'CronFederatedHPA'),
    'spec.scaleTargetRef.kind',
    'only FederatedHPA is supported',
  ],
  [
    'FederatedHPA under another apiVersion',
    (o) => (o.spec.scaleTargetRef.apiVersion = 'autoscaling/v2'),
    'spec.scaleTargetRef.apiVersion',
    'FederatedHPA is served as autoscaling.karmada.io/v1alpha1',
  ],
]);

describe('CronFederatedHPA: defaulting', () => {
  it('defaults suspend and the history limits per rule, keeping given values', () => {
    const o = cronWorkload();
    o.spec.rules[1].successfulHistoryLimit = 10;
    o.spec.rules[1].failedHistoryLimit = 0;
    o.spec.rules[1].suspend = true;
    const out = admit(o) as Obj;
    expect(out.spec.rules).toEqual([
      {
        name: 'up',
        schedule: '30 8 * * *',
        targetReplicas: 10,
        suspend: false,
        successfulHistoryLimit: 3,
        failedHistoryLimit: 3,
      },
      {
        name: 'down',
        schedule: '0 11 * * *',
        targetReplicas: 1,
        timeZone: 'Asia/Shanghai',
        suspend: true,
        successfulHistoryLimit: 10,
        failedHistoryLimit: 0,
      },
    ]);
  });

  it("accepts the CronFederatedHPA proposal's `ruleName` spelling as `name`, and an empty time zone (UTC)", () => {
    const o = cronFhpa();
    o.spec.rules = [{ ruleName: 'Scale-Up', schedule: '30 08 * * *', targetMinReplicas: 1000, timeZone: '' }];
    const out = admit(o) as Obj;
    expect(out.spec.rules[0].name).toBe('Scale-Up');
    expect(out.spec.rules[0].ruleName).toBeUndefined();
  });

  it('completes a FederatedHPA target named without apiVersion, so that its rules are judged and run as min/max', () => {
    for (const apiVersion of [undefined, '']) {
      const o = cronFhpa();
      o.spec.scaleTargetRef = {
        ...(apiVersion === undefined ? {} : { apiVersion }),
        kind: 'FederatedHPA',
        name: 'shop-fhpa',
      };
      expect((admit(o) as Obj).spec.scaleTargetRef).toEqual({
        apiVersion: 'autoscaling.karmada.io/v1alpha1',
        kind: 'FederatedHPA',
        name: 'shop-fhpa',
      });
      o.spec.rules = [{ name: 'up', schedule: '0 8 * * *', targetReplicas: 3 }];
      expect(() => admit(o)).toThrow(/spec\.rules\[0\]\.targetMaxReplicas.*cannot both be empty/);
    }
  });

  it('leaves targetReplicas alone on a FederatedHPA target and an empty rule list alone (Karmada admits both)', () => {
    const o = cronFhpa();
    o.spec.rules[0].targetReplicas = 4;
    expect(() => admit(o)).not.toThrow();
    expect((admit({ ...cronFhpa(), spec: { ...cronFhpa().spec, rules: [] } }) as Obj).spec.rules).toEqual([]);
  });
});

const pp = (): Obj => ({
  apiVersion: 'policy.karmada.io/v1alpha1',
  kind: 'PropagationPolicy',
  metadata: { name: 'nginx', namespace: 'default' },
  spec: {
    resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'nginx' }],
    placement: {
      clusterAffinities: [
        { affinityName: 'dc-a', clusterNames: ['member1'] },
        { affinityName: 'dc-b', labelSelector: { matchLabels: { tier: 'backup' } } },
      ],
      clusterTolerations: [
        { key: 'cluster.karmada.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 },
      ],
      spreadConstraints: [{ spreadByField: 'cluster', maxGroups: 2, minGroups: 1 }],
      replicaScheduling: {
        replicaSchedulingType: 'Divided',
        replicaDivisionPreference: 'Weighted',
        weightPreference: { staticWeightList: [{ targetCluster: { clusterNames: ['member1'] }, weight: 2 }] },
      },
    },
  },
});

faultTable('PropagationPolicy', pp, [
  [
    'clusterAffinity with clusterAffinities',
    (o) => (o.spec.placement.clusterAffinity = { clusterNames: ['m'] }),
    'spec.placement.clusterAffinities',
    'Forbidden: clusterAffinities can not co-exist with clusterAffinity',
  ],
  [
    'duplicate affinityName',
    (o) => (o.spec.placement.clusterAffinities[1].affinityName = 'dc-a'),
    'spec.placement.clusterAffinities[1].affinityName',
    'duplicate name "dc-a"',
  ],
  [
    'empty affinityName',
    (o) => (o.spec.placement.clusterAffinities[0].affinityName = ''),
    'spec.placement.clusterAffinities[0].affinityName',
    'Required value',
  ],
  [
    'affinityName not a label key',
    (o) => (o.spec.placement.clusterAffinities[0].affinityName = 'dc a'),
    'spec.placement.clusterAffinities[0].affinityName',
    'Invalid value: "dc a"',
  ],
  [
    'affinityName over 32 characters',
    (o) => (o.spec.placement.clusterAffinities[0].affinityName = 'a'.repeat(33)),
    'spec.placement.clusterAffinities[0].affinityName',
    'Too long',
  ],
  [
    'negative static weight',
    (o) => (o.spec.placement.replicaScheduling.weightPreference.staticWeightList[0].weight = -1),
    'spec.placement.replicaScheduling.weightPreference.staticWeightList[0].weight',
    'Invalid value: -1: must be greater than or equal to 1',
  ],
  [
    'unknown replicaSchedulingType',
    (o) => (o.spec.placement.replicaScheduling.replicaSchedulingType = 'Split'),
    'spec.placement.replicaScheduling.replicaSchedulingType',
    'Unsupported value: "Split": supported values: "Duplicated", "Divided"',
  ],
  [
    'unknown replicaDivisionPreference',
    (o) => (o.spec.placement.replicaScheduling.replicaDivisionPreference = 'Random'),
    'spec.placement.replicaScheduling.replicaDivisionPreference',
    'Unsupported value: "Random"',
  ],
  [
    'unknown dynamicWeight',
    (o) => (o.spec.placement.replicaScheduling.weightPreference.dynamicWeight = 'Cpu'),
    'spec.placement.replicaScheduling.weightPreference.dynamicWeight',
    'supported values: "AvailableReplicas"',
  ],
  [
    'Duplicated with a division preference',
    (o) => (o.spec.placement.replicaScheduling.replicaSchedulingType = 'Duplicated'),
    'spec.placement.replicaScheduling.replicaDivisionPreference',
    'Forbidden',
  ],
  [
    'maxGroups < minGroups',
    (o) => (o.spec.placement.spreadConstraints[0] = { spreadByField: 'cluster', maxGroups: 1, minGroups: 2 }),
    'spec.placement.spreadConstraints[0].maxGroups',
    'maxGroups lower than minGroups (2) is not allowed',
  ],
  [
    'spreadByField with spreadByLabel',
    (o) => (o.spec.placement.spreadConstraints[0].spreadByLabel = 'rack'),
    'spec.placement.spreadConstraints[0]',
    'spreadByLabel should not co-exist with spreadByField',
  ],
  [
    'spreadByField without a cluster constraint',
    (o) => (o.spec.placement.spreadConstraints[0].spreadByField = 'region'),
    'spec.placement.spreadConstraints',
    'the cluster spread constraint must be enabled',
  ],
  [
    'unknown spreadByField',
    (o) => (o.spec.placement.spreadConstraints[0].spreadByField = 'rack'),
    'spec.placement.spreadConstraints[0].spreadByField',
    'Unsupported value: "rack"',
  ],
  [
    'negative minGroups',
    (o) => (o.spec.placement.spreadConstraints[0].minGroups = -1),
    'spec.placement.spreadConstraints[0].minGroups',
    'must be greater than or equal to 0',
  ],
  [
    'field selector on an unknown key',
    (o) =>
      (o.spec.placement.clusterAffinities[0].fieldSelector = {
        matchExpressions: [{ key: 'name', operator: 'In', values: ['x'] }],
      }),
    'spec.placement.clusterAffinities[0].fieldSelector.matchExpressions[0].key',
    'supported values: "provider", "region", "zone"',
  ],
  [
    'field selector with Exists',
    (o) =>
      (o.spec.placement.clusterAffinities[0].fieldSelector = {
        matchExpressions: [{ key: 'zone', operator: 'Exists' }],
      }),
    'spec.placement.clusterAffinities[0].fieldSelector.matchExpressions[0].operator',
    'supported values: "In", "NotIn"',
  ],
  [
    'toleration with an unknown effect',
    (o) => (o.spec.placement.clusterTolerations[0].effect = 'NoWay'),
    'spec.placement.clusterTolerations[0].effect',
    'Invalid value',
  ],
  [
    'label selector with an unknown operator',
    (o) =>
      (o.spec.placement.clusterAffinities[1].labelSelector = { matchExpressions: [{ key: 'a', operator: 'Has' }] }),
    'spec.placement.clusterAffinities[1].labelSelector.matchExpressions[0].operator',
    'Unsupported value: "Has"',
  ],
  [
    'overflowAffinities with static weights',
    (o) =>
      (o.spec.placement.clusterAffinities[0].overflowAffinities = [{ affinityName: 'burst', clusterNames: ['m9'] }]),
    'spec.placement.clusterAffinities[0].overflowAffinities',
    'Forbidden: overflowAffinities need replicaScheduling Divided',
  ],
  [
    'no resource selectors',
    (o) => (o.spec.resourceSelectors = []),
    'spec.resourceSelectors',
    'must have at least 1 item',
  ],
  [
    'selector in another namespace',
    (o) => (o.spec.resourceSelectors[0].namespace = 'other'),
    'spec.resourceSelectors[0].namespace',
    'selects only in its own namespace "default"',
  ],
  [
    'application failover without propagateDeps',
    (o) => (o.spec.failover = { application: { decisionConditions: {} } }),
    'spec.propagateDeps',
    'propagateDeps must be true',
  ],
  [
    'fail-back enabled without a stabilization window',
    (o) => (o.spec.failover = { failback: { enabled: true, maxConcurrent: 1 } }),
    'spec.failover.failback.stabilizationWindow',
    'Required value',
  ],
  [
    'fail-back with a window that is not a duration',
    (o) => (o.spec.failover = { failback: { enabled: true, stabilizationWindow: 'ten minutes' } }),
    'spec.failover.failback.stabilizationWindow',
    'Invalid value: "ten minutes": must be a duration greater than 0',
  ],
  [
    'fail-back with a zero window',
    (o) => (o.spec.failover = { failback: { enabled: false, stabilizationWindow: '0s' } }),
    'spec.failover.failback.stabilizationWindow',
    'must be a duration greater than 0',
  ],
  [
    'fail-back with no concurrency',
    (o) => (o.spec.failover = { failback: { enabled: true, stabilizationWindow: '10m', maxConcurrent: 0 } }),
    'spec.failover.failback.maxConcurrent',
    'must be greater than or equal to 1',
  ],
  [
    'fail-back with an unknown mode',
    (o) => (o.spec.failover = { failback: { enabled: true, stabilizationWindow: '10m', mode: 'Directly' } }),
    'spec.failover.failback.mode',
    'Unsupported value: "Directly"',
  ],
  [
    'fail-back with an unknown field',
    (o) => (o.spec.failover = { failback: { enabled: true, stabilizationWindow: '10m', window: '10m' } }),
    'spec.failover.failback.window',
    'unknown field "window"',
  ],
  ['unknown placement field', (o) => (o.spec.placement.foo = 1), 'spec.placement.foo', 'unknown field "foo"'],
  [
    'unknown preemption',
    (o) => (o.spec.preemption = 'Sometimes'),
    'spec.preemption',
    'supported values: "Always", "Never"',
  ],
  ['priority not an int32', (o) => (o.spec.priority = 1.5), 'spec.priority', 'expected integer'],
]);

// Karmada v1.18's overflowAffinities (ValidatePlacement, ValidateOverflowAffinities): capacity-aware division only, a
// term that selects clusters itself, tier names that are label keys unique within the term, supported field selectors.
const ppOverflow = (): Obj => ({
  ...pp(),
  spec: {
    resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'nginx' }],
    placement: {
      clusterAffinities: [
        {
          affinityName: 'on-prem',
          clusterNames: ['member1'],
          overflowAffinities: [
            { affinityName: 'cloud-a', clusterNames: ['member2'] },
            {
              affinityName: 'cloud-b',
              fieldSelector: { matchExpressions: [{ key: 'provider', operator: 'In', values: ['aws'] }] },
            },
          ],
        },
      ],
      replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Aggregated' },
    },
  },
});
const OVERFLOW = 'spec.placement.clusterAffinities[0].overflowAffinities';

faultTable('PropagationPolicy with overflowAffinities', ppOverflow, [
  [
    'no replicaScheduling (Duplicated)',
    (o) => delete o.spec.placement.replicaScheduling,
    OVERFLOW,
    'Forbidden: overflowAffinities need replicaScheduling Divided with Aggregated, or Weighted with a dynamicWeight',
  ],
  [
    'Duplicated',
    (o) => (o.spec.placement.replicaScheduling = { replicaSchedulingType: 'Duplicated' }),
    OVERFLOW,
    'Forbidden: overflowAffinities need replicaScheduling Divided',
  ],
  [
    'Divided by static weights',
    (o) =>
      (o.spec.placement.replicaScheduling = {
        replicaSchedulingType: 'Divided',
        replicaDivisionPreference: 'Weighted',
        weightPreference: { staticWeightList: [{ targetCluster: { clusterNames: ['member1'] }, weight: 1 }] },
      }),
    OVERFLOW,
    'Forbidden: overflowAffinities need replicaScheduling Divided',
  ],
  [
    'a term that selects no clusters itself',
    (o) => delete o.spec.placement.clusterAffinities[0].clusterNames,
    OVERFLOW,
    'Forbidden: overflowAffinities need the term itself to select clusters',
  ],
  [
    'an overflow field selector on an unsupported key',
    (o) =>
      (o.spec.placement.clusterAffinities[0].overflowAffinities[1].fieldSelector.matchExpressions[0].key = 'cloud'),
    `${OVERFLOW}[1].fieldSelector.matchExpressions[0].key`,
    'Unsupported value: "cloud": supported values: "provider", "region", "zone"',
  ],
  [
    'an overflow field selector with an unsupported operator',
    (o) => {
      const e = o.spec.placement.clusterAffinities[0].overflowAffinities[1].fieldSelector.matchExpressions[0];
      e.operator = 'Exists';
      delete e.values;
    },
    `${OVERFLOW}[1].fieldSelector.matchExpressions[0].operator`,
    'Unsupported value: "Exists": supported values: "In", "NotIn"',
  ],
  [
    'two tiers of one name',
    (o) => (o.spec.placement.clusterAffinities[0].overflowAffinities[1].affinityName = 'cloud-a'),
    `${OVERFLOW}[1].affinityName`,
    'duplicate name "cloud-a"',
  ],
  [
    "a tier named as the term's own",
    (o) => (o.spec.placement.clusterAffinities[0].overflowAffinities[0].affinityName = 'on-prem'),
    `${OVERFLOW}[0].affinityName`,
    'duplicate name "on-prem"',
  ],
  [
    'a tier name that is not a label key',
    (o) => (o.spec.placement.clusterAffinities[0].overflowAffinities[0].affinityName = 'cloud a'),
    `${OVERFLOW}[0].affinityName`,
    'Invalid value: "cloud a"',
  ],
]);

describe('PropagationPolicy with overflowAffinities: admitted', () => {
  it('with Divided / Weighted and a dynamicWeight', () => {
    const o = ppOverflow();
    o.spec.placement.replicaScheduling = {
      replicaSchedulingType: 'Divided',
      replicaDivisionPreference: 'Weighted',
      weightPreference: { dynamicWeight: 'AvailableReplicas' },
    };
    expect(() => admit(o)).not.toThrow();
  });

  it('with a term that only excludes clusters (exclude makes the inline affinity non-empty)', () => {
    const o = ppOverflow();
    o.spec.placement.clusterAffinities[0] = { ...o.spec.placement.clusterAffinities[0], exclude: ['member9'] };
    delete o.spec.placement.clusterAffinities[0].clusterNames;
    expect(() => admit(o)).not.toThrow();
  });
});

describe('PropagationPolicy with failover.failback (karmada#7441): admitted', () => {
  it("as the proposal's example writes it, kept as written", () => {
    const o = pp();
    o.spec.failover = {
      failback: { enabled: true, stabilizationWindow: '10m', maxConcurrent: 1, mode: 'Graciously' },
    };
    expect((admit(o) as Obj).spec.failover.failback).toEqual(o.spec.failover.failback);
  });

  it('disabled, without a window', () => {
    const o = pp();
    o.spec.failover = { failback: { enabled: false } };
    expect(() => admit(o)).not.toThrow();
  });
});

describe('PropagationPolicy: defaulting', () => {
  it("applies Karmada's CRD and webhook defaults", () => {
    const o = pp();
    o.spec.placement = { replicaScheduling: {}, spreadConstraints: [{}, { spreadByLabel: 'rack', maxGroups: 2 }] };
    const out = admit(o) as Obj;
    expect(out.spec).toMatchObject({
      priority: 0,
      preemption: 'Never',
      conflictResolution: 'Abort',
      schedulerName: 'default-scheduler',
    });
    expect(out.spec.resourceSelectors[0].namespace).toBe('default');
    expect(out.spec.placement.replicaScheduling).toEqual({
      replicaSchedulingType: 'Divided',
      replicaDivisionPreference: 'Weighted',
    });
    expect(out.spec.placement.spreadConstraints).toEqual([
      { spreadByField: 'cluster', minGroups: 1 },
      { spreadByLabel: 'rack', maxGroups: 2, minGroups: 1 },
    ]);
  });

  it.each([
    [{ replicaSchedulingType: 'Duplicated' }, { replicaSchedulingType: 'Duplicated' }],
    [
      { replicaDivisionPreference: 'Aggregated' },
      { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Aggregated' },
    ],
    [
      { replicaSchedulingType: 'Divided', weightPreference: { dynamicWeight: 'AvailableReplicas' } },
      {
        replicaSchedulingType: 'Divided',
        replicaDivisionPreference: 'Weighted',
        weightPreference: { dynamicWeight: 'AvailableReplicas' },
      },
    ],
  ])('replicaScheduling %j becomes %j', (given, expected) => {
    const o = pp();
    o.spec.placement = { replicaScheduling: given };
    expect((admit(o) as Obj).spec.placement.replicaScheduling).toEqual(expected);
  });

  it('defaults application failover and keeps a ClusterPropagationPolicy selector namespace-free', () => {
    const o = pp();
    o.kind = 'ClusterPropagationPolicy';
    delete o.metadata.namespace;
    o.spec.propagateDeps = true;
    o.spec.failover = { application: { decisionConditions: {} } };
    const out = admit(o) as Obj;
    expect(out.metadata.namespace).toBeUndefined();
    expect(out.spec.resourceSelectors[0].namespace).toBeUndefined();
    expect(out.spec.failover.application).toEqual({
      decisionConditions: { tolerationSeconds: 300 },
      purgeMode: 'Graciously',
      gracePeriodSeconds: 600,
    });
  });

  it('admits overflowAffinities with Divided/Aggregated', () => {
    const o = pp();
    o.spec.placement = {
      clusterAffinities: [
        {
          affinityName: 'local',
          clusterNames: ['m1'],
          overflowAffinities: [{ affinityName: 'cloud', clusterNames: ['m2'] }],
        },
      ],
      replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Aggregated' },
    };
    expect(() => admit(o)).not.toThrow();
  });
});

const cluster = (): Obj => ({
  apiVersion: 'cluster.karmada.io/v1alpha1',
  kind: 'Cluster',
  metadata: { name: 'member1' },
  spec: {
    syncMode: 'Push',
    taints: [{ key: 'maintenance', value: 'true', effect: 'NoSchedule' }],
    simulation: { allocatable: { cpu: '8', memory: '32Gi', pods: 110 } },
  },
});

faultTable('Cluster', cluster, [
  [
    'unparseable simulated cpu',
    (o) => (o.spec.simulation.allocatable.cpu = 'lots'),
    'spec.simulation.allocatable.cpu',
    'must be a quantity',
  ],
  [
    'negative simulated memory',
    (o) => (o.spec.simulation.allocatable.memory = '-1Gi'),
    'spec.simulation.allocatable.memory',
    'must be greater than or equal to 0',
  ],
  [
    'fractional simulated pods',
    (o) => (o.spec.simulation.allocatable.pods = '1500m'),
    'spec.simulation.allocatable.pods',
    'whole number of pods',
  ],
  [
    'simulation without pods',
    (o) => delete o.spec.simulation.allocatable.pods,
    'spec.simulation.allocatable.pods',
    'Required value',
  ],
  ['unknown simulation field', (o) => (o.spec.simulation.gpus = 2), 'spec.simulation.gpus', 'unknown field "gpus"'],
  [
    'unknown load model',
    (o) => (o.spec.simulation.loads = [{ workload: { kind: 'Deployment', name: 'a' }, model: { type: 'random' } }]),
    'spec.simulation.loads[0].model.type',
    'Invalid',
  ],
  [
    'invalid taint effect',
    (o) => (o.spec.taints[0].effect = 'NoWay'),
    'spec.taints[0].effect',
    'Unsupported value: "NoWay": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
  ],
  ['taint without key', (o) => delete o.spec.taints[0].key, 'spec.taints[0].key', 'Required value'],
  [
    'duplicate taint',
    (o) => o.spec.taints.push({ key: 'maintenance', effect: 'NoSchedule' }),
    'spec.taints[1]',
    'Duplicate value',
  ],
  ['unknown syncMode', (o) => (o.spec.syncMode = 'Sideways'), 'spec.syncMode', 'supported values: "Push", "Pull"'],
  [
    'name over 48 characters',
    (o) => (o.metadata.name = 'c'.repeat(49)),
    'metadata.name',
    'must be no more than 48 characters',
  ],
  ['name with a dot', (o) => (o.metadata.name = 'member.one'), 'metadata.name', 'RFC 1123 label'],
  [
    'status condition with a bad status',
    (o) => (o.status = { conditions: [{ type: 'Ready', status: 'Maybe' }] }),
    'status.conditions[0].status',
    'Unsupported value: "Maybe"',
  ],
  [
    'status allocatable not a quantity',
    (o) => (o.status = { resourceSummary: { allocatable: { cpu: 'many' } } }),
    'status.resourceSummary.allocatable.cpu',
    'must be a quantity',
  ],
  [
    'resource models that are not contiguous (Karmada ValidateClusterResourceModels)',
    (o) =>
      (o.spec.resourceModels = [
        { grade: 0, ranges: [{ name: 'cpu', min: '0', max: '2' }] },
        { grade: 1, ranges: [{ name: 'cpu', min: '3', max: '8' }] },
      ]),
    'spec.resourceModels[1].ranges[0].min',
    'must equal the max of grade 0 ("2"): model intervals must be contiguous and non-overlapping',
  ],
]);

describe('Cluster: defaulting', () => {
  it('defaults syncMode to Push and keeps unknown status fields', () => {
    const o = cluster();
    delete o.spec.syncMode;
    o.status = { kubernetesVersion: 'v1.29.0', somethingNew: { a: 1 } };
    const out = admit(o) as Obj;
    expect(out.spec.syncMode).toBe('Push');
    expect(out.status).toEqual({ kubernetesVersion: 'v1.29.0', somethingNew: { a: 1 } });
  });
});

const fhpa = (): Obj => ({
  apiVersion: 'autoscaling.karmada.io/v1alpha1',
  kind: 'FederatedHPA',
  metadata: { name: 'shop', namespace: 'default' },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop' },
    minReplicas: 2,
    maxReplicas: 10,
    federatedHPAAssignment: {
      federatedHPAAssignmentType: 'StaticWeighted',
      clusterAutoscalingPreference: [{ targetCluster: { clusterNames: ['member1'] }, staticWeight: 1 }],
    },
  },
});

faultTable('FederatedHPA', fhpa, [
  [
    'minReplicas 0',
    (o) => (o.spec.minReplicas = 0),
    'spec.minReplicas',
    'Invalid value: 0: must be greater than or equal to 1',
  ],
  [
    'maxReplicas below minReplicas',
    (o) => (o.spec.maxReplicas = 1),
    'spec.maxReplicas',
    'must be greater than or equal to minReplicas (2)',
  ],
  ['maxReplicas missing', (o) => delete o.spec.maxReplicas, 'spec.maxReplicas', 'Required value'],
  [
    'unknown assignment type',
    (o) => (o.spec.federatedHPAAssignment.federatedHPAAssignmentType = 'Random'),
    'spec.federatedHPAAssignment.federatedHPAAssignmentType',
    'Unsupported value: "Random"',
  ],
  [
    'negative static weight',
    (o) => (o.spec.federatedHPAAssignment.clusterAutoscalingPreference[0].staticWeight = -1),
    'spec.federatedHPAAssignment.clusterAutoscalingPreference[0].staticWeight',
    'Invalid value: -1: must be greater than 0',
  ],
  [
    'zero static weight',
    (o) => (o.spec.federatedHPAAssignment.clusterAutoscalingPreference[0].staticWeight = 0),
    'spec.federatedHPAAssignment.clusterAutoscalingPreference[0].staticWeight',
    'Invalid value: 0: must be greater than 0',
  ],
  [
    'StaticWeighted preference naming no cluster',
    (o) => (o.spec.federatedHPAAssignment.clusterAutoscalingPreference[0].targetCluster = {}),
    'spec.federatedHPAAssignment.clusterAutoscalingPreference[0].targetCluster',
    'Required value: a StaticWeighted preference must name its clusters',
  ],
  [
    'StaticWeighted preference that only excludes',
    (o) =>
      (o.spec.federatedHPAAssignment.clusterAutoscalingPreference[0].targetCluster = {
        clusterNames: [],
        exclude: ['member2'],
      }),
    'spec.federatedHPAAssignment.clusterAutoscalingPreference[0].targetCluster',
    'must name its clusters',
  ],
  [
    'Prioritized preference naming no cluster',
    (o) =>
      (o.spec.federatedHPAAssignment = {
        federatedHPAAssignmentType: 'Prioritized',
        clusterAutoscalingPreference: [{ targetCluster: {}, priority: 1 }],
      }),
    'spec.federatedHPAAssignment.clusterAutoscalingPreference[0].targetCluster',
    'Required value: a Prioritized preference must name its clusters',
  ],
  [
    'minReplicas -1 even with scalingToZero',
    (o) => Object.assign(o.spec, { minReplicas: -1, scalingToZero: true }),
    'spec.minReplicas',
    'Invalid value: -1: must be greater than or equal to 0',
  ],
  [
    'maxReplicas 0',
    (o) => Object.assign(o.spec, { minReplicas: 0, maxReplicas: 0, scalingToZero: true }),
    'spec.maxReplicas',
    'Invalid value: 0: must be greater than or equal to 1',
  ],
  [
    'Resource target with neither utilization nor averageValue',
    (o) => (o.spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization' } } }]),
    'spec.metrics[0].resource.target.averageUtilization',
    'must set either a target raw value or a target utilization',
  ],
  [
    'Resource target with both utilization and averageValue',
    (o) =>
      (o.spec.metrics = [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50, averageValue: '500m' } },
        },
      ]),
    'spec.metrics[0].resource.target.averageValue',
    'may not set both',
  ],
  [
    'Pods target without averageValue',
    (o) =>
      (o.spec.metrics = [{ type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'Value', value: '10' } } }]),
    'spec.metrics[0].pods.target.averageValue',
    'must specify a positive target averageValue',
  ],
  [
    'External target without value or averageValue',
    (o) =>
      (o.spec.metrics = [{ type: 'External', external: { metric: { name: 'queue' }, target: { type: 'Value' } } }]),
    'spec.metrics[0].external.target.value',
    'must set either a target value or averageValue',
  ],
  [
    'Object target with a zero value',
    (o) =>
      (o.spec.metrics = [
        {
          type: 'Object',
          object: {
            describedObject: { kind: 'Service', name: 'web' },
            metric: { name: 'rps' },
            target: { type: 'Value', value: '0' },
          },
        },
      ]),
    'spec.metrics[0].object.target.value',
    'must be positive',
  ],
  [
    'averageUtilization 0',
    (o) =>
      (o.spec.metrics = [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 0 } } },
      ]),
    'spec.metrics[0].resource.target.averageUtilization',
    '',
  ],
  [
    'behavior with an empty policy list',
    (o) => (o.spec.behavior = { scaleDown: { policies: [] } }),
    'spec.behavior.scaleDown.policies',
    'Required value: must specify at least one Policy',
  ],
  [
    'behavior policy of an unknown type',
    (o) => (o.spec.behavior = { scaleUp: { policies: [{ type: 'Nodes', value: 1, periodSeconds: 15 }] } }),
    'spec.behavior.scaleUp.policies[0].type',
    '',
  ],
  [
    'behavior policy period over 1800 s',
    (o) => (o.spec.behavior = { scaleUp: { policies: [{ type: 'Pods', value: 1, periodSeconds: 1801 }] } }),
    'spec.behavior.scaleUp.policies[0].periodSeconds',
    '',
  ],
  [
    'behavior stabilization window over an hour',
    (o) => (o.spec.behavior = { scaleDown: { stabilizationWindowSeconds: 3601 } }),
    'spec.behavior.scaleDown.stabilizationWindowSeconds',
    '',
  ],
  [
    'StaticWeighted without weight',
    (o) => delete o.spec.federatedHPAAssignment.clusterAutoscalingPreference[0].staticWeight,
    'spec.federatedHPAAssignment.clusterAutoscalingPreference[0].staticWeight',
    'Required value',
  ],
  [
    'Prioritized without priority',
    (o) => (o.spec.federatedHPAAssignment.federatedHPAAssignmentType = 'Prioritized'),
    'spec.federatedHPAAssignment.clusterAutoscalingPreference[0].priority',
    'Required value',
  ],
  [
    'Resource metric without its source',
    (o) => (o.spec.metrics = [{ type: 'Resource' }]),
    'spec.metrics[0].resource',
    'Required value',
  ],
  [
    'Pods metric with Utilization',
    (o) =>
      (o.spec.metrics = [
        {
          type: 'Pods',
          pods: { metric: { name: 'qps' }, target: { type: 'Utilization', averageUtilization: 5, averageValue: '5' } },
        },
      ]),
    'spec.metrics[0].pods.target.type',
    'only Resource and ContainerResource',
  ],
  [
    'scaleTargetRef without name',
    (o) => (o.spec.scaleTargetRef.name = ''),
    'spec.scaleTargetRef.name',
    'Required value',
  ],
  ['unknown spec field', (o) => (o.spec.targetCPU = 50), 'spec.targetCPU', 'unknown field "targetCPU"'],
]);

describe('FederatedHPA: scalingToZero', () => {
  it('admits minReplicas 0 when scalingToZero is set', () => {
    const o = fhpa();
    Object.assign(o.spec, { minReplicas: 0, scalingToZero: true });
    expect((admit(o) as Obj).spec.minReplicas).toBe(0);
  });

  it('says why minReplicas 0 is refused without it', () => {
    const o = fhpa();
    o.spec.minReplicas = 0;
    expect(causesOf(o)).toEqual([
      {
        field: 'spec.minReplicas',
        message: 'Invalid value: 0: must be greater than or equal to 1 unless scalingToZero is set',
      },
    ]);
  });

  it('admits preferences that pick clusters by label or field instead of name', () => {
    const o = fhpa();
    o.spec.federatedHPAAssignment.clusterAutoscalingPreference = [
      { targetCluster: { labelSelector: { matchLabels: { tier: 'gold' } } }, staticWeight: 3 },
      {
        targetCluster: { fieldSelector: { matchExpressions: [{ key: 'region', operator: 'In', values: ['eu'] }] } },
        staticWeight: 1,
      },
    ];
    expect(() => admit(o)).not.toThrow();
  });
});

describe('FederatedHPA: defaulting', () => {
  it('defaults minReplicas and the 80% CPU metric, and leaves a shipped FederatedHPA without an assignment', () => {
    const o = fhpa();
    delete o.spec.minReplicas;
    delete o.spec.federatedHPAAssignment;
    const out = admit(o) as Obj;
    expect(out.spec.minReplicas).toBe(1);
    expect(out.spec.metrics).toEqual([
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
    ]);
    expect(out.spec.federatedHPAAssignment).toBeUndefined();
    const withEmpty = fhpa();
    withEmpty.spec.federatedHPAAssignment = {};
    expect((admit(withEmpty) as Obj).spec.federatedHPAAssignment).toEqual({ federatedHPAAssignmentType: 'Duplicated' });
    expect(out.spec.behavior).toBeUndefined();
  });

  it('fills a given behavior as Kubernetes does', () => {
    const o = fhpa();
    o.spec.behavior = { scaleDown: { stabilizationWindowSeconds: 10 } };
    expect((admit(o) as Obj).spec.behavior).toEqual({
      scaleUp: {
        stabilizationWindowSeconds: 0,
        selectPolicy: 'Max',
        policies: [
          { type: 'Pods', value: 4, periodSeconds: 15 },
          { type: 'Percent', value: 100, periodSeconds: 15 },
        ],
      },
      scaleDown: {
        stabilizationWindowSeconds: 10,
        selectPolicy: 'Max',
        policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
      },
    });
  });
});

const ehpa = (): Obj => ({
  apiVersion: 'autoscaling.crane.io/v1alpha1',
  kind: 'EffectiveHorizontalPodAutoscaler',
  metadata: { name: 'php-apache' },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'php-apache' },
    minReplicas: 1,
    maxReplicas: 10,
    prediction: {
      predictionWindowSeconds: 3600,
      predictionAlgorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '3d' } },
    },
    crons: [{ name: 'cron1', timezone: 'Local', start: '0 6 ? * *', end: '0 9 ? * *', targetReplicas: 8 }],
  },
});

faultTable('EffectiveHorizontalPodAutoscaler', ehpa, [
  [
    'minReplicas above maxReplicas',
    (o) => (o.spec.minReplicas = 11),
    'spec.maxReplicas',
    'must be greater than or equal to minReplicas (11)',
  ],
  ['maxReplicas 0', (o) => (o.spec.maxReplicas = 0), 'spec.maxReplicas', 'must be greater than or equal to 1'],
  [
    'scaleStrategy Manual',
    (o) => (o.spec.scaleStrategy = 'Manual'),
    'spec.scaleStrategy',
    'supported values: "Auto", "Preview"',
  ],
  [
    'specificReplicas without Preview',
    (o) => (o.spec.specificReplicas = 3),
    'spec.specificReplicas',
    'only used with scaleStrategy Preview',
  ],
  ['empty cron end', (o) => (o.spec.crons[0].end = ' '), 'spec.crons[0].end', 'Required value'],
  [
    'duplicate cron name',
    (o) => o.spec.crons.push({ ...o.spec.crons[0] }),
    'spec.crons[1].name',
    'Duplicate value: "cron1"',
  ],
  [
    'negative cron targetReplicas',
    (o) => (o.spec.crons[0].targetReplicas = -1),
    'spec.crons[0].targetReplicas',
    'must be greater than or equal to 0',
  ],
  [
    'unknown algorithm',
    (o) => (o.spec.prediction.predictionAlgorithm.algorithmType = 'arima'),
    'spec.prediction.predictionAlgorithm.algorithmType',
    'supported values: "dsp", "percentile"',
  ],
  [
    'unknown dsp field',
    (o) => (o.spec.prediction.predictionAlgorithm.dsp.window = '1h'),
    'spec.prediction.predictionAlgorithm.dsp.window',
    'unknown field "window"',
  ],
  ['cron without start', (o) => delete o.spec.crons[0].start, 'spec.crons[0].start', 'Required value'],
  ['empty cron start', (o) => (o.spec.crons[0].start = ''), 'spec.crons[0].start', 'Required value'],
  [
    'cron names that differ only in case',
    (o) => o.spec.crons.push({ ...o.spec.crons[0], name: 'CRON1' }),
    'spec.crons[1].name',
    'same cron metric as "cron1"',
  ],
  [
    'sample interval over an hour',
    (o) => (o.spec.prediction.predictionAlgorithm.dsp.sampleInterval = '2h'),
    'spec.prediction.predictionAlgorithm.dsp.sampleInterval',
    'must be at most 1h',
  ],
  [
    'history shorter than 48h',
    (o) => (o.spec.prediction.predictionAlgorithm.dsp.historyLength = '1d'),
    'spec.prediction.predictionAlgorithm.dsp.historyLength',
    'must be at least 48h',
  ],
  [
    'history that is not a duration',
    (o) => (o.spec.prediction.predictionAlgorithm.dsp.historyLength = 'three days'),
    'spec.prediction.predictionAlgorithm.dsp.historyLength',
    'must be a duration',
  ],
  [
    'estimator margin that is not a number',
    (o) => (o.spec.prediction.predictionAlgorithm.dsp.estimators = { fft: [{ marginFraction: 'ten' }] }),
    'spec.prediction.predictionAlgorithm.dsp.estimators.fft[0].marginFraction',
    'must be a decimal number',
  ],
  [
    'predictionWindowSeconds 0',
    (o) => (o.spec.prediction.predictionWindowSeconds = 0),
    'spec.prediction.predictionWindowSeconds',
    '',
  ],
  [
    'Resource averageValue 0',
    (o) =>
      (o.spec.metrics = [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'AverageValue', averageValue: '0' } } },
      ]),
    'spec.metrics[0].resource.target.averageValue',
    'must be positive',
  ],
  [
    'Resource target with both utilization and averageValue',
    (o) =>
      (o.spec.metrics = [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50, averageValue: '500m' } },
        },
      ]),
    'spec.metrics[0].resource.target.averageValue',
    'may not set both',
  ],
  [
    'behavior with an empty policy list',
    (o) => (o.spec.behavior = { scaleUp: { policies: [] } }),
    'spec.behavior.scaleUp.policies',
    'Required value: must specify at least one Policy',
  ],
]);

describe('EffectiveHorizontalPodAutoscaler: defaulting', () => {
  it('defaults minReplicas 1, scaleStrategy Auto and predictionWindowSeconds 3600', () => {
    const o = ehpa();
    delete o.spec.minReplicas;
    delete o.spec.prediction.predictionWindowSeconds;
    const out = admit(o) as Obj;
    expect(out.spec).toMatchObject({
      minReplicas: 1,
      scaleStrategy: 'Auto',
      prediction: { predictionWindowSeconds: 3600 },
    });
  });
});

const rebalancer = (): Obj => ({
  apiVersion: 'apps.karmada.io/v1alpha1',
  kind: 'WorkloadRebalancer',
  metadata: { name: 'demo' },
  spec: {
    workloads: [
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'demo-deploy-1', namespace: 'default' },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'demo-role' },
    ],
    ttlSecondsAfterFinished: 60,
  },
});

faultTable('WorkloadRebalancer', rebalancer, [
  ['empty workloads', (o) => (o.spec.workloads = []), 'spec.workloads', 'must have at least 1 item'],
  ['missing workloads', (o) => delete o.spec.workloads, 'spec.workloads', 'Required value'],
  [
    'incomplete workload reference',
    (o) => (o.spec.workloads[1] = { kind: 'ClusterRole', name: 'r' }),
    'spec.workloads[1].apiVersion',
    'Required value',
  ],
  [
    'workload with an empty kind',
    (o) => (o.spec.workloads[0].kind = ''),
    'spec.workloads[0].kind',
    'must not be empty',
  ],
  [
    'unknown field in a workload',
    (o) => (o.spec.workloads[0].uid = 'x'),
    'spec.workloads[0].uid',
    'unknown field "uid"',
  ],
  [
    'empty workload selector',
    (o) => (o.spec.workloadSelectors = [{ labelSelector: {} }]),
    'spec.workloadSelectors[0].labelSelector',
    'an empty selector would select every workload',
  ],
  [
    'selector without labelSelector',
    (o) => (o.spec.workloadSelectors = [{ namespace: 'default' }]),
    'spec.workloadSelectors[0].labelSelector',
    'Required value',
  ],
  [
    'selector kind without apiVersion',
    (o) => (o.spec.workloadSelectors = [{ kind: 'Deployment', labelSelector: { matchLabels: { a: 'b' } } }]),
    'spec.workloadSelectors[0].apiVersion',
    'Required value: needed with kind Deployment',
  ],
  [
    'selector of an unknown kind',
    (o) =>
      (o.spec.workloadSelectors = [
        { apiVersion: 'apps/v1', kind: 'Widget', labelSelector: { matchLabels: { a: 'b' } } },
      ]),
    'spec.workloadSelectors[0].kind',
    'Invalid value',
  ],
  [
    'selector namespace for a cluster-scoped kind',
    (o) =>
      (o.spec.workloadSelectors = [
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          namespace: 'default',
          labelSelector: { matchLabels: { a: 'b' } },
        },
      ]),
    'spec.workloadSelectors[0].namespace',
    'Forbidden: ClusterRole is cluster-scoped',
  ],
  [
    'selector namespace not a DNS label',
    (o) => (o.spec.workloadSelectors = [{ namespace: 'Prod_1', labelSelector: { matchLabels: { a: 'b' } } }]),
    'spec.workloadSelectors[0].namespace',
    'RFC 1123 label',
  ],
  [
    'selector In without values',
    (o) => (o.spec.workloadSelectors = [{ labelSelector: { matchExpressions: [{ key: 'tier', operator: 'In' }] } }]),
    'spec.workloadSelectors[0].labelSelector.matchExpressions[0].values',
    'must be specified when operator is In',
  ],
  [
    'selector Exists with values',
    (o) =>
      (o.spec.workloadSelectors = [
        { labelSelector: { matchExpressions: [{ key: 'tier', operator: 'Exists', values: ['a'] }] } },
      ]),
    'spec.workloadSelectors[0].labelSelector.matchExpressions[0].values',
    'may not be specified when operator is Exists',
  ],
  [
    'selector with an unknown operator',
    (o) => (o.spec.workloadSelectors = [{ labelSelector: { matchExpressions: [{ key: 'tier', operator: 'Has' }] } }]),
    'spec.workloadSelectors[0].labelSelector.matchExpressions[0].operator',
    'Unsupported value: "Has"',
  ],
  [
    'no workloads and no selectors',
    (o) => (o.spec = { workloads: [], ttlSecondsAfterFinished: 5 }),
    'spec.workloads',
    'give spec.workloadSelectors',
  ],
  ['workload without name', (o) => delete o.spec.workloads[0].name, 'spec.workloads[0].name', 'Required value'],
  [
    'namespaced workload without namespace',
    (o) => delete o.spec.workloads[0].namespace,
    'spec.workloads[0].namespace',
    'Required value: Deployment is namespaced',
  ],
  [
    'cluster-scoped workload with namespace',
    (o) => (o.spec.workloads[1].namespace = 'default'),
    'spec.workloads[1].namespace',
    'Forbidden: ClusterRole is cluster-scoped',
  ],
  [
    'unregistered workload kind',
    (o) => (o.spec.workloads[0].kind = 'ReplicaSet'),
    'spec.workloads[0].kind',
    'no kind "ReplicaSet" is registered',
  ],
  [
    'wrong workload apiVersion',
    (o) => (o.spec.workloads[0].apiVersion = 'apps/v2'),
    'spec.workloads[0].kind',
    'use apps/v1',
  ],
  [
    'negative TTL',
    (o) => (o.spec.ttlSecondsAfterFinished = -1),
    'spec.ttlSecondsAfterFinished',
    'must be greater than or equal to 0',
  ],
  ['namespace on the rebalancer', (o) => (o.metadata.namespace = 'default'), 'metadata.namespace', 'cluster-scoped'],
]);

describe('WorkloadRebalancer: workloadSelectors (Flotilla extension)', () => {
  it('admits a rebalancer that selects its workloads by labels only', () => {
    const o = rebalancer();
    o.spec = {
      workloadSelectors: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          namespace: 'shop',
          labelSelector: { matchLabels: { tier: 'web' } },
        },
      ],
    };
    expect((admit(o) as Obj).spec.workloadSelectors).toEqual(o.spec.workloadSelectors);
  });
});

const binding = (): Obj => ({
  apiVersion: 'work.karmada.io/v1alpha2',
  kind: 'ResourceBinding',
  metadata: { name: 'shop-deployment', namespace: 'default' },
  spec: {
    resource: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'shop',
      namespace: 'default',
      uid: 'u-1',
      resourceVersion: '7',
    },
    replicas: 3,
    replicaRequirements: { resourceRequest: { cpu: '250m', memory: '256Mi' } },
    clusters: [
      { name: 'member1', replicas: 2 },
      { name: 'member2', replicas: 1 },
    ],
    placement: { clusterAffinities: [{ affinityName: 'dc-a', clusterNames: ['member1', 'member2'] }] },
    rescheduleTriggeredAt: '2024-04-17T15:04:05Z',
  },
  status: { schedulerObservingAffinityName: 'dc-a', lastScheduledTime: '2024-04-17T15:04:05Z' },
});

faultTable('ResourceBinding', binding, [
  ['missing resource', (o) => delete o.spec.resource, 'spec.resource', 'Required value'],
  [
    'negative cluster replicas',
    (o) => (o.spec.clusters[0].replicas = -1),
    'spec.clusters[0].replicas',
    'must be greater than or equal to 0',
  ],
  [
    'duplicate target cluster',
    (o) => (o.spec.clusters[1].name = 'member1'),
    'spec.clusters[1].name',
    'Duplicate value: "member1"',
  ],
  [
    'rescheduleTriggeredAt not RFC3339',
    (o) => (o.spec.rescheduleTriggeredAt = 'now'),
    'spec.rescheduleTriggeredAt',
    'RFC3339',
  ],
  [
    'resource request not a quantity',
    (o) => (o.spec.replicaRequirements.resourceRequest.cpu = 'fast'),
    'spec.replicaRequirements.resourceRequest.cpu',
    'must be a quantity',
  ],
  [
    'placement rules apply',
    (o) => (o.spec.placement.clusterAffinity = {}),
    'spec.placement.clusterAffinities',
    'can not co-exist',
  ],
  [
    'lastScheduledTime not RFC3339',
    (o) => (o.status.lastScheduledTime = 17),
    'status.lastScheduledTime',
    'expected string',
  ],
]);

faultTable(
  'PriorityClass',
  () => ({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'urgent' }, value: 1000 }),
  [
    ['no value', (o) => delete o.value, 'value', ''],
    ['a value that is not an integer', (o) => (o.value = 1.5), 'value', ''],
    ['a value above what a user may set', (o) => (o.value = 2_000_000_000), 'value', 'at most 1000000000'],
    ['an unknown preemption policy', (o) => (o.preemptionPolicy = 'Sometimes'), 'preemptionPolicy', ''],
  ],
);

describe('PriorityClass: admitted', () => {
  it('a system- class may go above what a user may set', () => {
    expect(() =>
      admit({
        apiVersion: 'scheduling.k8s.io/v1',
        kind: 'PriorityClass',
        metadata: { name: 'system-critical' },
        value: 2_000_000_000,
      }),
    ).not.toThrow();
  });
});
