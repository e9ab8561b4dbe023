import { readableQuantity, parseQuantity } from './quantity.js';

/** The resources a cluster's bar shows, in this order. */
export const CLUSTER_RESOURCES = ['cpu', 'memory', 'pods'] as const;
export type ClusterResource = (typeof CLUSTER_RESOURCES)[number];

/** One resource of a cluster: what is allocated of what is allocatable. */
export interface ResourceBar {
  resource: ClusterResource;
  allocatable: number;
  allocated: number;
  /** allocated / allocatable, 0..1 (0 when nothing is allocatable). */
  share: number;
  /** The bar's text, so that the figure is never told by its length alone: `cpu 2.5 of 8 (31%)`. */
  label: string;
}

export interface ClusterRow {
  name: string;
  /** The Ready condition's status: `True`, `False` or `Unknown` (no condition yet). */
  ready: string;
  readyReason: string;
  /** A simulated cluster has `spec.simulation`; any other is a real cluster reached by a kube member-agent. */
  mode: 'simulated' | 'kube';
  /** A simulated cluster made unreachable with `cluster fail`. */
  failed: boolean;
  /** `key=value:Effect` per taint. */
  taints: string[];
  bars: ResourceBar[];
}

type Json = Record<string, unknown>;
const rec = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});

/** The Clusters page's rows, by name, from stored Cluster objects (as `list` returns them). */
export function clusterRows(clusters: readonly unknown[]): ClusterRow[] {
  return clusters
    .map((c) => {
      const o = rec(c);
      const spec = rec(o.spec);
      const status = rec(o.status);
      const conditions = Array.isArray(status.conditions) ? (status.conditions as Json[]) : [];
      const ready = conditions.find((x) => x.type === 'Ready');
      const summary = rec(status.resourceSummary);
      const simulation = spec.simulation === undefined ? undefined : rec(spec.simulation);
      const taints = (Array.isArray(spec.taints) ? (spec.taints as Json[]) : []).map(
        (t) => `${String(t.key)}${t.value === undefined ? '' : `=${String(t.value)}`}:${String(t.effect)}`,
      );
      return {
        name: String(rec(o.metadata).name ?? ''),
        ready: typeof ready?.status === 'string' ? ready.status : 'Unknown',
        readyReason: typeof ready?.reason === 'string' ? ready.reason : '',
        mode: simulation ? 'simulated' : 'kube',
        failed: simulation?.failed === true,
        taints,
        bars: CLUSTER_RESOURCES.map((r) => resourceBar(r, rec(summary.allocatable)[r], rec(summary.allocated)[r])),
      } satisfies ClusterRow;
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

export function resourceBar(resource: ClusterResource, allocatable: unknown, allocated: unknown): ResourceBar {
  const total = parseQuantity(allocatable ?? 0);
  const used = parseQuantity(allocated ?? 0);
  const share = total > 0 && Number.isFinite(used) ? Math.min(1, Math.max(0, used / total)) : 0;
  return {
    resource,
    allocatable: total,
    allocated: used,
    share,
    label: `${resource} ${readableQuantity(used, resource)} of ${readableQuantity(total, resource)} (${Math.round(share * 100)}%)`,
  };
}
