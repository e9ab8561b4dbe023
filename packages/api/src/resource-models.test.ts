import { describe, expect, it } from 'vitest';
import {
  allocatableModelings,
  DEFAULT_RESOURCE_MODELS,
  effectiveResourceModels,
  maxReplicasByResourceModels,
  type ModeledNode,
  modelMinimums,
  resourceUnits,
  validateResourceModels,
} from './resource-models.js';
import type { ResourceModel } from './kinds/resource-model.js';

const cpuModels = (...mins: string[]): ResourceModel[] =>
  mins.map((min, grade) => ({ grade, ranges: [{ name: 'cpu', min, max: mins[grade + 1] ?? '1000' }] }));

const cpuMemModels: ResourceModel[] = [
  {
    grade: 0,
    ranges: [
      { name: 'cpu', min: '0', max: '1' },
      { name: 'memory', min: '0', max: '1Gi' },
    ],
  },
  {
    grade: 1,
    ranges: [
      { name: 'cpu', min: '1', max: '2' },
      { name: 'memory', min: '1Gi', max: '2Gi' },
    ],
  },
  {
    grade: 2,
    ranges: [
      { name: 'cpu', min: '2', max: '4' },
      { name: 'memory', min: '2Gi', max: '4Gi' },
    ],
  },
];

const units = (list: Record<string, string>) => Object.entries(list).map(([n, q]) => [n, resourceUnits(n, q)] as const);
const one = (count: number) => [0, 1, 2].map((grade) => ({ grade, count }));

describe('maxReplicasByResourceModels (Karmada TestGetMaximumReplicasBasedOnResourceModels)', () => {
  it.each<{
    name: string;
    models: ResourceModel[];
    modelings: { grade: number; count: number }[];
    request: Record<string, string>;
    want: number | undefined;
  }>([
    // Upstream answers -1 with an error; the estimator then falls back to the summary.
    {
      name: 'No grade defined should result in an error',
      models: [],
      modelings: [],
      request: { cpu: '1' },
      want: undefined,
    },
    {
      name: 'Partially compliant grades',
      models: cpuModels('0', '1', '2'),
      modelings: one(1),
      request: { cpu: '1.5' },
      want: 1,
    },
    {
      name: 'No compliant grades',
      models: cpuModels('0', '1', '2'),
      modelings: one(1),
      request: { cpu: '3' },
      want: 0,
    },
    {
      name: 'Multi resource request',
      models: cpuMemModels,
      modelings: one(1),
      request: { cpu: '1', memory: '1.5Gi' },
      want: 1,
    },
    {
      name: 'request exceeds highest grade',
      models: cpuMemModels,
      modelings: one(1),
      request: { cpu: '1', memory: '2.5Gi' },
      want: 0,
    },
    {
      name: 'CPU-only: 3 grades, only highest compliant',
      models: cpuModels('500m', '1000m', '2000m'),
      modelings: [
        { grade: 0, count: 5 },
        { grade: 1, count: 0 },
        { grade: 2, count: 10 },
      ],
      request: { cpu: '1500m' },
      want: 10,
    },
    {
      name: 'several replicas per node in the higher grades',
      models: cpuModels('0', '1', '2', '4'),
      modelings: [
        { grade: 0, count: 3 },
        { grade: 1, count: 2 },
        { grade: 2, count: 2 },
        { grade: 3, count: 1 },
      ],
      request: { cpu: '1' },
      want: 2 * 1 + 2 * 2 + 1 * 4,
    },
    {
      name: '5-cpu pods on 4-cpu nodes under the default models: no grade holds one',
      models: [...DEFAULT_RESOURCE_MODELS],
      modelings: DEFAULT_RESOURCE_MODELS.map((m) => ({ grade: m.grade, count: m.grade === 3 ? 2 : 0 })),
      request: { cpu: '5' },
      want: 0,
    },
  ])('$name', ({ models, modelings, request, want }) => {
    expect(maxReplicasByResourceModels(modelMinimums(models), modelings, units(request))).toBe(want);
  });
});

const node = (allocatable: Record<string, string>, requested: Record<string, string> = {}, pods = 0): ModeledNode => ({
  allocatable: Object.fromEntries(units(allocatable)),
  requested: Object.fromEntries(units(requested)),
  pods,
});

describe('allocatableModelings (Karmada getAllocatableModelings)', () => {
  const milli: ResourceModel[] = [
    {
      grade: 0,
      ranges: [
        { name: 'cpu', min: '0', max: '1' },
        { name: 'memory', min: '0', max: '1024' },
      ],
    },
    {
      grade: 1,
      ranges: [
        { name: 'cpu', min: '1m', max: '2' },
        { name: 'memory', min: '1024m', max: '2048' },
      ],
    },
  ];
  it.each<{
    name: string;
    models: readonly ResourceModel[];
    nodes: ModeledNode[];
    want: { grade: number; count: number }[];
  }>([
    // Upstream's "suc to get AllocatableModeling": nodes without cpu or memory are grade 0.
    {
      name: 'nodes without modeled resources',
      models: milli,
      nodes: [node({}), node({})],
      want: [
        { grade: 0, count: 2 },
        { grade: 1, count: 0 },
      ],
    },
    {
      name: 'default models: two 4-cpu 16Gi nodes are grade 2, an 8-cpu 64Gi node grade 4',
      models: DEFAULT_RESOURCE_MODELS,
      nodes: [
        node({ cpu: '4', memory: '16Gi', pods: '110' }),
        node({ cpu: '4', memory: '16Gi', pods: '110' }),
        node({ cpu: '8', memory: '64Gi', pods: '110' }),
      ],
      want: DEFAULT_RESOURCE_MODELS.map((m) => ({ grade: m.grade, count: m.grade === 2 ? 2 : m.grade === 4 ? 1 : 0 })),
    },
    {
      name: 'what runs on a node is subtracted: 4 cpu with 3.5 requested is grade 0',
      models: DEFAULT_RESOURCE_MODELS,
      nodes: [node({ cpu: '4', memory: '32Gi', pods: '110' }, { cpu: '3500m', memory: '1Gi' }, 3)],
      want: DEFAULT_RESOURCE_MODELS.map((m) => ({ grade: m.grade, count: m.grade === 0 ? 1 : 0 })),
    },
    {
      name: 'a node whose pods leave no pod room is left out, the next one still counts',
      models: cpuModels('0', '2'),
      nodes: [node({ cpu: '4', pods: '2' }, { cpu: '1' }, 2), node({ cpu: '4', pods: '2' })],
      want: [
        { grade: 0, count: 0 },
        { grade: 1, count: 1 },
      ],
    },
    {
      name: 'a node without pods counts whatever its pod capacity',
      models: cpuModels('0', '2'),
      nodes: [node({ cpu: '4' })],
      want: [
        { grade: 0, count: 0 },
        { grade: 1, count: 1 },
      ],
    },
  ])('$name', ({ models, nodes, want }) => {
    expect(allocatableModelings(models, nodes)).toEqual(want);
  });
});

describe('effectiveResourceModels', () => {
  it('is the default models when the spec has none', () => {
    expect(effectiveResourceModels({})).toBe(DEFAULT_RESOURCE_MODELS);
    expect(effectiveResourceModels({ resourceModels: [] })).toBe(DEFAULT_RESOURCE_MODELS);
    expect(DEFAULT_RESOURCE_MODELS.map((m) => m.ranges.map((r) => r.min).join('/'))).toEqual([
      '0/0',
      '1/4Gi',
      '2/16Gi',
      '4/32Gi',
      '8/64Gi',
      '16/128Gi',
      '32/256Gi',
      '64/512Gi',
      '128/1024Gi',
    ]);
  });

  it('orders by grade, starts the first grade at 0 and leaves the last unbounded (StandardizeClusterResourceModels)', () => {
    const models = effectiveResourceModels({
      resourceModels: [
        { grade: 1, ranges: [{ name: 'cpu', min: '2', max: '4' }] },
        { grade: 0, ranges: [{ name: 'cpu', min: '1', max: '2' }] },
      ],
    });
    expect(models).toEqual([
      { grade: 0, ranges: [{ name: 'cpu', min: '0', max: '2' }] },
      { grade: 1, ranges: [{ name: 'cpu', min: '2', max: '9223372036854775807' }] },
    ]);
  });
});

describe('validateResourceModels (Karmada ValidateClusterResourceModels)', () => {
  const cpu = (min: string, max: string) => ({ name: 'cpu', min, max });
  const mem = (min: string, max: string) => ({ name: 'memory', min, max });
  it.each<{ name: string; models: ResourceModel[]; want: Array<[string, RegExp]> }>([
    { name: "Karmada's defaults", models: [...DEFAULT_RESOURCE_MODELS], want: [] },
    {
      name: 'given out of grade order, first min and last max as the webhook standardizes them',
      models: [
        { grade: 1, ranges: [cpu('2', '4')] },
        { grade: 0, ranges: [cpu('1', '2')] },
      ],
      want: [],
    },
    {
      name: 'a repeated grade',
      models: [
        { grade: 0, ranges: [cpu('0', '2')] },
        { grade: 0, ranges: [cpu('2', '4')] },
      ],
      want: [['spec.resourceModels[1].grade', /^Duplicate value: 0: the grade of each model must be unique$/]],
    },
    {
      name: 'a different number of resources',
      models: [
        { grade: 0, ranges: [cpu('0', '2'), mem('0', '4Gi')] },
        { grade: 1, ranges: [cpu('2', '4')] },
      ],
      want: [
        ['spec.resourceModels[1].ranges', /^Invalid value: 1 ranges: every model must have as many as grade 0 \(2\)$/],
      ],
    },
    {
      name: 'an unsupported resource',
      models: [{ grade: 0, ranges: [{ name: 'nvidia.com/gpu', min: '0', max: '1' }] }],
      want: [
        [
          'spec.resourceModels[0].ranges[0].name',
          /^Unsupported value: "nvidia.com\/gpu": supported values: "cpu", "ephemeral-storage", "memory", "storage"$/,
        ],
      ],
    },
    {
      name: 'resources in another order',
      models: [
        { grade: 0, ranges: [cpu('0', '2'), mem('0', '4Gi')] },
        { grade: 1, ranges: [mem('4Gi', '8Gi'), cpu('2', '4')] },
      ],
      want: [
        ['spec.resourceModels[1].ranges[0].name', /must be "cpu" as in grade 0/],
        ['spec.resourceModels[1].ranges[1].name', /must be "memory" as in grade 0/],
      ],
    },
    {
      name: 'a gap and a max below its min, each reported',
      models: [
        { grade: 0, ranges: [cpu('0', '2')] },
        { grade: 1, ranges: [cpu('3', '2500m')] },
        { grade: 2, ranges: [cpu('4', '8')] },
      ],
      want: [
        ['spec.resourceModels[1].ranges[0].min', /must equal the max of grade 0 \("2"\)/],
        ['spec.resourceModels[1].ranges[0].max', /^Invalid value: "2500m": must be greater than min "3"$/],
        ['spec.resourceModels[2].ranges[0].min', /must equal the max of grade 1 \("2500m"\)/],
      ],
    },
  ])('$name', ({ models, want }) => {
    const errs = validateResourceModels(models, 'spec.resourceModels');
    expect(errs.map((e) => e.field)).toEqual(want.map(([f]) => f));
    for (const [i, e] of errs.entries()) expect(e.message).toMatch(want[i]![1]);
  });
});
