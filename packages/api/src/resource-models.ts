import type { FieldError } from './errors.js';
import type { AllocatableModeling, ResourceModel } from './kinds/resource-model.js';
import { parseQuantity } from './quantity.js';

/**
 * Karmada's cluster resource models (feature CustomizedClusterResourceModeling, beta and on by default): a Cluster's
 * `spec.resourceModels` cut node capacity into grades, and its status counts the nodes of each grade
 * (`status.resourceSummary.allocatableModelings`). The general estimator then answers how many replicas fit from
 * those counts, so a pod larger than every node gets 0 however much the cluster has in total.
 *
 * Both halves live here, beside the Cluster kind, so that the member-agent (which reports the counts) and the
 * scheduler (which reads them) share one reading of the models: `pkg/modeling`, the cluster status controller's
 * `getAllocatableModelings` and the estimator's `getMaximumReplicasBasedOnResourceModels`.
 */

/** The largest int64, which Karmada writes as the `max` of the last grade. */
const MAX_INT64 = '9223372036854775807';

const DEFAULT_GRADES: ReadonlyArray<readonly [cpu: number, memoryGi: number]> = [
  [0, 0],
  [1, 4],
  [2, 16],
  [4, 32],
  [8, 64],
  [16, 128],
  [32, 256],
  [64, 512],
  [128, 1024],
];

/**
 * Karmada's default models (`SetDefaultClusterResourceModels`), which its Cluster webhook writes into a Cluster
 * without `spec.resourceModels`: nine grades of cpu and memory, [0,1) cores and [0,4Gi) up to [128,∞) cores and
 * [1024Gi,∞).
 */
export const DEFAULT_RESOURCE_MODELS: readonly ResourceModel[] = Object.freeze(
  DEFAULT_GRADES.map(([cpu, mem], grade) => {
    const next = DEFAULT_GRADES[grade + 1];
    return {
      grade,
      ranges: [
        { name: 'cpu', min: String(cpu), max: next ? String(next[0]) : MAX_INT64 },
        { name: 'memory', min: mem === 0 ? '0' : `${mem}Gi`, max: next ? `${next[1]}Gi` : MAX_INT64 },
      ],
    };
  }),
);

/**
 * The models that apply to a cluster: its own `spec.resourceModels` ordered by grade (Karmada's
 * `StandardizeClusterResourceModels`: the first grade starts at 0 and the last has no upper bound), or
 * DEFAULT_RESOURCE_MODELS when it has none. Flotilla does not write the defaults into the spec (the webhook does in
 * Karmada): an unset field means the defaults, and what a user applied stays as applied.
 */
export function effectiveResourceModels(
  spec: { resourceModels?: readonly ResourceModel[] | undefined } | undefined,
): readonly ResourceModel[] {
  const models = spec?.resourceModels;
  if (!models || models.length === 0) return DEFAULT_RESOURCE_MODELS;
  const sorted = [...models].sort((a, b) => a.grade - b.grade);
  return sorted.map((m, i) => ({
    grade: m.grade,
    ranges: m.ranges.map((r) => ({
      name: r.name,
      min: i === 0 ? '0' : r.min,
      max: i === sorted.length - 1 ? MAX_INT64 : r.max,
    })),
  }));
}

/** The resources a model may name (Karmada's `supportedResourceNames`). */
const SUPPORTED_RESOURCES = ['cpu', 'ephemeral-storage', 'memory', 'storage'] as const;

/**
 * Karmada's `ValidateClusterResourceModels`, on the models as they apply (ordered by grade, the first starting at 0
 * and the last unbounded, see effectiveResourceModels): grades unique, every model naming the same supported
 * resources in the same order, each range's max above its min, and each grade starting where the one below ends.
 * Unlike upstream, which stops at the first problem, every error is returned, at the path of the model the user wrote.
 */
export function validateResourceModels(models: readonly ResourceModel[] | undefined, path: string): FieldError[] {
  if (!models || models.length === 0) return [];
  const errs: FieldError[] = [];
  const order = models.map((_, i) => i).sort((a, b) => models[a]!.grade - models[b]!.grade);
  const standard = effectiveResourceModels({ resourceModels: [...models] });
  order.forEach((index, rank) => {
    const at = `${path}[${index}]`;
    const model = standard[rank]!;
    const below = rank > 0 ? standard[rank - 1] : undefined;
    if (below && below.grade === model.grade) {
      errs.push({
        field: `${at}.grade`,
        message: `Duplicate value: ${model.grade}: the grade of each model must be unique`,
      });
      return;
    }
    if (below && below.ranges.length !== model.ranges.length) {
      errs.push({
        field: `${at}.ranges`,
        message: `Invalid value: ${model.ranges.length} ranges: every model must have as many as grade ${below.grade} (${below.ranges.length})`,
      });
      return;
    }
    model.ranges.forEach((r, j) => {
      const field = `${at}.ranges[${j}]`;
      if (!(SUPPORTED_RESOURCES as readonly string[]).includes(r.name)) {
        errs.push({
          field: `${field}.name`,
          message: `Unsupported value: ${JSON.stringify(r.name)}: supported values: ${SUPPORTED_RESOURCES.map((n) => `"${n}"`).join(', ')}`,
        });
        return;
      }
      const prev = below?.ranges[j];
      if (prev && prev.name !== r.name)
        errs.push({
          field: `${field}.name`,
          message: `Invalid value: ${JSON.stringify(r.name)}: must be ${JSON.stringify(prev.name)} as in grade ${below!.grade}: every model names the same resources in the same order`,
        });
      else if (prev && parseQuantity(prev.max) !== parseQuantity(r.min))
        errs.push({
          field: `${field}.min`,
          message: `Invalid value: ${JSON.stringify(r.min)}: must equal the max of grade ${below!.grade} (${JSON.stringify(prev.max)}): model intervals must be contiguous and non-overlapping`,
        });
      if (parseQuantity(r.max) <= parseQuantity(r.min))
        errs.push({
          field: `${field}.max`,
          message: `Invalid value: ${JSON.stringify(r.max)}: must be greater than min ${JSON.stringify(r.min)}`,
        });
    });
  });
  return errs;
}

/**
 * A quantity in the integer unit Kubernetes reads it in for scheduling: millicores for cpu (MilliValue), whole units
 * for everything else (Value), both rounded up. The epsilon keeps binary floating point from turning 0.3 into 301m.
 */
export function resourceUnits(name: string, quantity: string | number): number {
  const q = parseQuantity(quantity);
  return name === 'cpu' ? Math.ceil(q * 1000 - 1e-9) : Math.ceil(q - 1e-9);
}

/** Each resource the models name, with its grades' minimums in resourceUnits, in grade order. */
export type ModelMinimums = ReadonlyMap<string, readonly number[]>;

/** Karmada's `convertToResourceModelsMinMap`: per resource name, the `min` of each grade that names it, in order. */
export function modelMinimums(models: readonly ResourceModel[]): ModelMinimums {
  const mins = new Map<string, number[]>();
  for (const m of models)
    for (const r of m.ranges) {
      const list = mins.get(r.name) ?? [];
      list.push(resourceUnits(r.name, r.min));
      mins.set(r.name, list);
    }
  return mins;
}

/** One node as the cluster status controller sees it: its allocatable, and what its bound, unfinished pods request. */
export interface ModeledNode {
  /** `status.allocatable` in resourceUnits (cpu in millicores, memory in bytes, pods a count). */
  allocatable: Readonly<Record<string, number>>;
  /** The summed requests of the pods bound to it that are not Succeeded or Failed, in resourceUnits. */
  requested: Readonly<Record<string, number>>;
  /** How many such pods. */
  pods: number;
}

/** The resources Karmada's modeling reads from a node (`ConvertToResourceList`); others count as 0. */
const MODELED_RESOURCES = new Set(['cpu', 'memory', 'storage', 'ephemeral-storage']);

/**
 * Karmada's `getAllocatableModelings`: each node's available resources (allocatable minus the requests of its pods)
 * fall into the highest grade whose minimum every modeled resource reaches (`searchLastLessElement`, the lowest such
 * grade over the resources); the answer counts the nodes of each grade, one entry per model in grade order.
 *
 * A node whose pods leave no room for another pod is left out, as upstream logs it ("we won't add the node"). Upstream then
 * stops counting the remaining nodes (a `break`), which makes its counts depend on the lister's order; Flotilla
 * skips only that node.
 */
export function allocatableModelings(
  models: readonly ResourceModel[],
  nodes: Iterable<ModeledNode>,
): AllocatableModeling[] {
  const counts = models.map((m) => ({ grade: m.grade, count: 0 }));
  if (models.length === 0) return counts;
  const mins = modelMinimums(models);
  // Upstream sorts by the resource names of the models' ranges (all grades name the same ones).
  const names = models[0]!.ranges.map((r) => r.name);
  for (const node of nodes) {
    // Upstream checks the pod room only of nodes that run pods (`getNodeAvailable` with no pod resources).
    if (node.pods > 0 && (node.allocatable.pods ?? 0) - node.pods <= 0) continue;
    let grade = Number.MAX_SAFE_INTEGER;
    for (const name of names) {
      const available = MODELED_RESOURCES.has(name)
        ? (node.allocatable[name] ?? 0) - (name in node.allocatable ? (node.requested[name] ?? 0) : 0)
        : 0;
      const index = lastAtMost(mins.get(name) ?? [], available);
      if (index < grade) grade = index;
    }
    // No grade starts low enough (only with a first grade above 0, which standardizing rules out): not counted.
    if (grade < 0 || grade >= counts.length) continue;
    counts[grade]!.count++;
  }
  return counts;
}

/** The index of the last minimum ≤ amount (minimums ascend), or -1. */
function lastAtMost(minimums: readonly number[], amount: number): number {
  let index = -1;
  for (let i = 0; i < minimums.length; i++) if (minimums[i]! <= amount) index = i;
  return index;
}

/** A per-replica request as [resource name, amount in resourceUnits], resources whose amount is 0 left out. */
export type RequestUnits = ReadonlyArray<readonly [string, number]>;

/**
 * Karmada's `getMaximumReplicasBasedOnResourceModels`: the lowest grade whose minimum reaches the request in every
 * requested resource (none → 0: no node is big enough), then over that grade and every higher one, nodes × the
 * replicas one node of the grade holds by its minimums (at least 1). Undefined when a requested resource is in no
 * model: the models cannot answer, and the estimator falls back to the resource summary, as upstream.
 */
export function maxReplicasByResourceModels(
  mins: ModelMinimums,
  modelings: readonly AllocatableModeling[],
  request: RequestUnits,
): number | undefined {
  let lowest = 0;
  for (const [name, amount] of request) {
    const grades = mins.get(name);
    if (!grades) return undefined;
    const index = grades.findIndex((min) => min >= amount);
    if (index === -1) return 0;
    if (index > lowest) lowest = index;
  }
  let replicas = 0;
  for (let i = lowest; i < modelings.length; i++) {
    const count = modelings[i]!.count;
    if (count === 0) continue;
    let perNode = Number.MAX_SAFE_INTEGER;
    for (const [name, amount] of request) {
      const fits = Math.floor((mins.get(name)![i] ?? 0) / amount);
      if (fits < perNode) perNode = fits;
    }
    // Upstream: the first suitable grade is taken to hold one pod even when its minimum is below the request.
    replicas += count * (perNode === 0 ? 1 : perNode);
  }
  return replicas;
}
