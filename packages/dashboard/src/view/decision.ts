/** A rejected cluster and the filter's reason. */
export interface RejectedCluster {
  cluster: string;
  reason: string;
}

export interface GroupTried {
  /** The affinity group's name; `<single clusterAffinity>` for a policy without groups. */
  name: string;
  ok: boolean;
  message: string;
  rejected: RejectedCluster[];
}

/** One workload's latest scheduling decision as its page shows it. */
export interface DecisionView {
  /** `Scheduled` or `Failed`; `None` before the first decision. */
  outcome: 'Scheduled' | 'Failed' | 'None';
  time: string;
  /** The group the placement came from (the decision's affinityName). */
  group: string;
  trigger: string;
  mode: string;
  reason: string;
  /** The clusters the decision placed replicas on (or kept, after a failure). */
  clusters: Array<{ name: string; replicas?: number }>;
  groups: GroupTried[];
  /** Set when a later "kept" event confirmed this decision without scheduling again. */
  keptAt?: string;
}

type Json = Record<string, unknown>;
const rec = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const arr = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);
const str = (v: unknown, fallback = '') => (typeof v === 'string' ? v : fallback);
const rejected = (v: unknown): RejectedCluster[] =>
  arr(v).map((f) => ({ cluster: str(f.cluster), reason: str(f.reason) }));

/**
 * The decision section of a workload's page, from the newest BindingScheduled / BindingScheduleFailed event (type
 * without its prefix, and data) the gateway's `decision` view returns. Read leniently, like `describe`: an older
 * scheduler may leave fields out.
 */
export function decisionView(
  decision: { type: string; time: string; data?: unknown } | undefined,
  kept?: { time: string },
): DecisionView {
  if (!decision)
    return { outcome: 'None', time: '', group: '', trigger: '', mode: '', reason: '', clusters: [], groups: [] };
  const d = rec(decision.data);
  const failed = decision.type.endsWith('BindingScheduleFailed');
  const groups = arr(d.groups);
  const named = groups.some((g) => g.affinityName !== undefined);
  const placed = arr(failed ? d.keptClusters : d.clusters).map((c) => ({
    name: str(c.name),
    ...(typeof c.replicas === 'number' ? { replicas: c.replicas } : {}),
  }));
  return {
    outcome: failed ? 'Failed' : 'Scheduled',
    time: decision.time,
    group: failed ? 'none succeeded' : str(d.affinityName, named ? '<unknown>' : '<none> (single clusterAffinity)'),
    trigger: str(d.trigger),
    mode: str(d.mode),
    reason: str(d.reason),
    clusters: placed,
    groups: groups.length
      ? groups.map((g) => ({
          name: str(g.affinityName, '<single clusterAffinity>'),
          ok: g.ok === true,
          message: str(g.message),
          rejected: rejected(g.filtered),
        }))
      : d.filtered
        ? [{ name: '<single clusterAffinity>', ok: !failed, message: '', rejected: rejected(d.filtered) }]
        : [],
    ...(kept ? { keptAt: kept.time } : {}),
  };
}
