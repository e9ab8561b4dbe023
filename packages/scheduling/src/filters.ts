import { clusterMatchesAffinity, clusterZones } from './cluster-affinity.js';
import { isWorkload } from './overflow.js';
import { findEvictingTaint, findUntoleratedTaint, taintToString } from './taints.js';
import type { Cluster, ClusterAffinity, Placement, ResourceBindingSpec, SpreadConstraint } from './types.js';

export interface FilteredCluster {
  cluster: string;
  reason: string;
}

export interface FilterInput {
  clusters: readonly Cluster[];
  /** The binding being scheduled: its resource (API enablement) and current targets. */
  spec: ResourceBindingSpec;
  /** The affinity of the group being tried (or the single clusterAffinity). */
  affinity: ClusterAffinity | undefined;
  /** The group's overflowAffinities: a workload may also land on a cluster one of them selects. */
  overflow?: readonly ClusterAffinity[] | undefined;
  now: Date;
}

export interface FilterResult {
  feasible: Cluster[];
  filtered: FilteredCluster[];
}

/** Reason strings, worded as Karmada's filter plugins word them. */
export const FilterReason = {
  deleting: 'cluster(s) were being deleted',
  apiMissing: 'cluster(s) did not have the API resource',
  notReady: 'cluster(s) were not ready',
  affinity: 'cluster(s) did not match the placement cluster affinity constraint',
} as const;

/**
 * Runs the filter plugins over every cluster in Karmada's order (API enablement, taint
 * toleration, cluster affinity, spread-constraint property) and records why each rejected cluster
 * was rejected.
 *
 * Two rules fold in what upstream does in other controllers, because here scheduling is the only
 * place that sees them:
 * - Ready: a cluster without Ready=True takes no NEW replicas (upstream: the not-ready NoSchedule
 *   taint); a cluster the workload already runs on is kept, so a short blip moves nothing.
 * - Failover: for a cluster the workload already runs on, NoSchedule taints are ignored (as
 *   upstream) but a NoExecute taint evicts it once untolerated or its tolerationSeconds have run
 *   out since `timeAdded` (upstream: the taint manager removing it from spec.clusters).
 */
export function filterClusters(input: FilterInput): FilterResult {
  const feasible: Cluster[] = [];
  const filtered: FilteredCluster[] = [];
  const { spec, affinity, now } = input;
  const placement: Placement = spec.placement ?? {};
  const targets = spec.clusters;
  const spread = placement.spreadConstraints;
  // Karmada's ClusterAffinity filter: overflow tiers take workloads only.
  const overflow = input.overflow && input.overflow.length > 0 && isWorkload(spec) ? input.overflow : undefined;
  for (const cluster of input.clusters) {
    const name = cluster.metadata.name ?? '';
    const reason = rejectReason(cluster, name, spec, placement, affinity, overflow, targets, spread, now);
    if (reason === undefined) feasible.push(cluster);
    else filtered.push({ cluster: name, reason });
  }
  return { feasible, filtered };
}

function rejectReason(
  cluster: Cluster,
  name: string,
  spec: ResourceBindingSpec,
  placement: Placement,
  affinity: ClusterAffinity | undefined,
  overflow: readonly ClusterAffinity[] | undefined,
  targets: ResourceBindingSpec['clusters'],
  spread: readonly SpreadConstraint[] | undefined,
  now: Date,
): string | undefined {
  if (cluster.metadata.deletionTimestamp) return FilterReason.deleting;
  if (!apiEnabled(cluster, spec)) return FilterReason.apiMissing;
  const current = targets?.some((t) => t.name === name);
  if (current) {
    const evicting = findEvictingTaint(cluster.spec?.taints, placement.clusterTolerations, now);
    if (evicting) return `cluster(s) had untolerated taint {${taintToString(evicting)}}`;
  } else {
    if (!isReady(cluster)) return FilterReason.notReady;
    const taint = findUntoleratedTaint(cluster.spec?.taints, placement.clusterTolerations);
    if (taint) return `cluster(s) had untolerated taint {${taintToString(taint)}}`;
  }
  if (!clusterMatchesAffinity(cluster, affinity) && !overflow?.some((o) => clusterMatchesAffinity(cluster, o)))
    return FilterReason.affinity;
  if (spread) {
    for (const c of spread) {
      const field = c.spreadByField;
      if (field === 'region' && !cluster.spec?.region) return 'cluster(s) did not have region property';
      if (field === 'provider' && !cluster.spec?.provider) return 'cluster(s) did not have provider property';
      if (field === 'zone' && clusterZones(cluster).length === 0) return 'cluster(s) did not have zones property';
      if (c.spreadByLabel && !(cluster.metadata.labels && c.spreadByLabel in cluster.metadata.labels)) {
        return `cluster(s) did not have label ${c.spreadByLabel}`;
      }
    }
  }
  return undefined;
}

/** True when the cluster reports a Ready condition with status True. */
export function isReady(cluster: Cluster): boolean {
  const conds = cluster.status?.conditions;
  if (!conds) return false;
  for (const c of conds) if (c.type === 'Ready') return c.status === 'True';
  return false;
}

// "Where known": a cluster that reports no API enablements is assumed to serve every API, so
// simulated clusters and hand-written what-if clusters do not need to list them.
function apiEnabled(cluster: Cluster, spec: ResourceBindingSpec): boolean {
  const list = cluster.status?.apiEnablements;
  if (!list || list.length === 0) return true;
  const { apiVersion, kind } = spec.resource;
  for (const e of list) {
    if (e.groupVersion !== apiVersion) continue;
    if (e.resources?.some((r) => r.kind === kind)) return true;
  }
  return false;
}
