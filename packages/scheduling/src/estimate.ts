import {
  DEFAULT_RESOURCE_MODELS,
  effectiveResourceModels,
  maxReplicasByResourceModels,
  modelMinimums,
  resourceUnits,
  type ModelMinimums,
} from '@flotilla/api/core';
import type { ResourceModel } from '@flotilla/api';
import type { ParsedRequest, Usage } from './request.js';
import type { Cluster, ResourceList, ResourceSummary } from './types.js';

/** A cluster as the scheduler sees it: its status, plus what it has assigned there that the status does not show. */
export type ClusterView = Cluster & { assumedUsage?: Usage | undefined };

export interface EstimateOptions {
  /** false answers from the resource summary alone, whatever models the cluster reports. Default true. */
  resourceModels?: boolean;
}

/** Karmada starts every estimate at max int32 ("unbounded"). */
export const MAX_REPLICAS = 2147483647;

/**
 * Free capacity of one cluster for one more replica of this shape, as Karmada's general estimator computes it: the
 * pod budget (allocatable − allocated − allocating pods) bounds every answer. With resource models
 * (`status.resourceSummary.allocatableModelings` reported, CustomizedClusterResourceModeling on by default) the rest
 * comes from the models: nodes of each grade big enough × replicas per node, so a replica larger than every node
 * gets 0. Without them (or when a requested resource is in no model), from the summary: per requested resource
 * ⌊(allocatable − allocated − allocating) / request⌋ (millicores for cpu). No summary → 0; a requested resource the
 * cluster does not report → 0. `desiredReplicas` 0 means a non-workload: unbounded, as upstream.
 *
 * Replicas assumed but not yet reported (`assumedUsage`) count as used: beyond Karmada, whose estimate from the
 * status alone lets a burst of decisions overcommit a cluster. They are subtracted from the summary, which then also
 * bounds a model answer, since node counts cannot say which node an assumed replica will take.
 */
export function estimateFreeReplicas(
  cluster: ClusterView,
  request: ParsedRequest | undefined,
  desiredReplicas: number,
  options: EstimateOptions = {},
): number {
  if (desiredReplicas === 0) return MAX_REPLICAS;
  const summary = cluster.status?.resourceSummary;
  if (!summary) return 0;
  const s = parsedSummary(summary);
  // No closure here: this runs for every cluster of every decision (the assignment bench's hot path).
  const assumed = cluster.assumedUsage;
  const pods = (s.allocatable.get('pods') ?? 0) - (s.used.get('pods') ?? 0) - (assumed?.get('pods') ?? 0);
  if (pods <= 0) return 0;
  if (!request) return Math.min(pods, MAX_REPLICAS);
  const modelings = summary.allocatableModelings;
  if (options.resourceModels !== false && modelings && modelings.length > 0) {
    const byModels = maxReplicasByResourceModels(minimumsOf(cluster), modelings, request.entries);
    if (byModels !== undefined) {
      const answer = Math.min(pods, byModels);
      return Math.min(
        assumed && assumed.size > 0 ? Math.min(answer, bySummary(s, request, assumed)) : answer,
        MAX_REPLICAS,
      );
    }
  }
  return Math.min(pods, bySummary(s, request, assumed), MAX_REPLICAS);
}

/** Karmada's `getMaximumReplicasBasedOnClusterSummary`, with Flotilla's assumed usage counted as used. */
function bySummary(s: ParsedSummary, request: ParsedRequest, assumed: Usage | undefined): number {
  let answer = Number.MAX_SAFE_INTEGER;
  for (const [name, amount] of request.entries) {
    const alloc = s.allocatable.get(name);
    if (alloc === undefined) return 0;
    const available = alloc - (s.used.get(name) ?? 0) - (assumed?.get(name) ?? 0);
    if (available <= 0) return 0;
    const bound = Math.floor(available / amount);
    if (bound < answer) answer = bound;
  }
  return answer;
}

// The models' minimums, parsed once per models list (a cluster's spec, or the shared defaults).
const minimumsCache = new WeakMap<readonly ResourceModel[], ModelMinimums>();

function minimumsOf(cluster: Cluster): ModelMinimums {
  const own = cluster.spec?.resourceModels;
  const key = own && own.length > 0 ? own : DEFAULT_RESOURCE_MODELS;
  const cached = minimumsCache.get(key);
  if (cached) return cached;
  const mins = modelMinimums(effectiveResourceModels(cluster.spec));
  minimumsCache.set(key, mins);
  return mins;
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
  for (const name of Object.keys(list)) m.set(name, resourceUnits(name, list[name]!));
  return m;
}
