import { parseQuantity } from '@flotilla/api';
import type { Usage } from './assumed-usage.js';
import type { Cluster, ResourceList, ResourceSummary } from './types.js';

/** A cluster as the scheduler sees it: its status, plus what it has assigned there that the status does not show. */
export type ClusterView = Cluster & { assumedUsage?: Usage | undefined };

/** Karmada starts every estimate at max int32 ("unbounded"). */
export const MAX_REPLICAS = 2147483647;

/** A per-replica resource request in the integer units the estimator divides in. */
export interface ParsedRequest {
  /** [resource name, amount] with cpu in millicores and everything else in whole units. */
  readonly entries: ReadonlyArray<readonly [string, number]>;
}

/** Parses `replicaRequirements.resourceRequest`; resources whose rounded-up value is 0 are ignored. */
export function parseResourceRequest(request: ResourceList | undefined): ParsedRequest | undefined {
  if (!request) return undefined;
  const entries: [string, number][] = [];
  for (const name of Object.keys(request)) {
    const q = parseQuantity(request[name]!);
    if (Math.ceil(q - 1e-12) <= 0) continue;
    entries.push([name, toUnits(name, q)]);
  }
  return entries.length > 0 ? { entries } : undefined;
}

/**
 * Free capacity of one cluster for one more replica of this shape, from
 * `status.resourceSummary` as Karmada's general estimator computes it: min over the pod budget
 * (allocatable − allocated − allocating pods) and, per requested resource,
 * ⌊(allocatable − allocated − allocating) / request⌋ (millicores for cpu). No summary → 0; a
 * requested resource the cluster does not report → 0. `desiredReplicas` 0 means a non-workload:
 * unbounded, as upstream. Replicas assumed but not yet reported (`assumedUsage`) count as used: beyond Karmada,
 * whose estimate from the summary alone lets a burst of decisions overcommit a cluster.
 */
export function estimateFreeReplicas(
  cluster: ClusterView,
  request: ParsedRequest | undefined,
  desiredReplicas: number,
): number {
  if (desiredReplicas === 0) return MAX_REPLICAS;
  const summary = cluster.status?.resourceSummary;
  if (!summary) return 0;
  const s = parsedSummary(summary);
  // No closure here: this runs for every cluster of every decision (the assignment bench's hot path).
  const assumed = cluster.assumedUsage;
  const pods = (s.allocatable.get('pods') ?? 0) - (s.used.get('pods') ?? 0) - (assumed?.get('pods') ?? 0);
  if (pods <= 0) return 0;
  let answer = pods;
  if (!request) return Math.min(answer, MAX_REPLICAS);
  for (const [name, amount] of request.entries) {
    const alloc = s.allocatable.get(name);
    if (alloc === undefined) return 0;
    const available = alloc - (s.used.get(name) ?? 0) - (assumed?.get(name) ?? 0);
    if (available <= 0) return 0;
    const bound = Math.floor(available / amount);
    if (bound < answer) answer = bound;
  }
  return Math.min(answer, MAX_REPLICAS);
}

interface ParsedSummary {
  allocatable: Map<string, number>;
  /** allocated + allocating, in the same units. */
  used: Map<string, number>;
}

// Parsing quantities is the costliest step of estimation and every binding re-reads the same
// clusters, so parsed summaries are cached per summary object. Cluster objects are treated as
// immutable: a status update must arrive as a new object (as it does from the store).
const cache = new WeakMap<ResourceSummary, ParsedSummary>();

function parsedSummary(summary: ResourceSummary): ParsedSummary {
  let s = cache.get(summary);
  if (s) return s;
  s = { allocatable: toUnitMap(summary.allocatable), used: toUnitMap(summary.allocated) };
  const allocating = toUnitMap(summary.allocating);
  for (const [k, v] of allocating) s.used.set(k, (s.used.get(k) ?? 0) + v);
  cache.set(summary, s);
  return s;
}

function toUnitMap(list: ResourceList | undefined): Map<string, number> {
  const m = new Map<string, number>();
  if (!list) return m;
  for (const name of Object.keys(list)) m.set(name, toUnits(name, parseQuantity(list[name]!)));
  return m;
}

// Kubernetes rounds quantities up to the unit it reads them in (MilliValue for cpu, Value for
// the rest); the tiny epsilon keeps binary floating point from rounding 0.3 cores to 301m.
function toUnits(name: string, q: number): number {
  return name === 'cpu' ? Math.ceil(q * 1000 - 1e-9) : Math.ceil(q - 1e-9);
}
