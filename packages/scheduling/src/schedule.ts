import { formatTime } from '@flotilla/api/core';
import { type Candidate, compareCandidates } from './candidate.js';
import { assignReplicas, type ScheduleMode } from './divide.js';
import { ScheduleAttemptError, type ScheduleErrorKind } from './errors.js';
import { estimateFreeReplicas } from './estimate.js';
import { parseResourceRequest } from './request.js';
import { type FilteredCluster, filterClusters } from './filters.js';
import { selectBySpreadConstraints } from './spread.js';
import { resolveStrategy, type Strategy } from './strategy.js';
import { prefersDescendingNames } from './tie-break.js';
import { clusterTier, overflowTiers, tierName } from './overflow.js';
import type { Cluster, ClusterAffinity, ClusterAffinityTerm, ResourceBinding, TargetCluster } from './types.js';

export interface ScheduleInput {
  binding: ResourceBinding;
  clusters: readonly Cluster[];
  now: Date;
}

/** Karmada's Scheduled-condition reasons, kept so that existing alerts keep working. */
export type ScheduleFailureReason = 'NoClusterFit' | 'Unschedulable' | 'SchedulerError';

/** One affinity group tried (a single-affinity placement is one unnamed attempt). */
export interface GroupAttempt {
  affinityName?: string;
  ok: boolean;
  /** The error for a failed attempt. */
  message?: string;
  filtered: FilteredCluster[];
}

export interface ScheduleSuccess {
  ok: true;
  clusters: TargetCluster[];
  /** The clusterAffinities term the result is based on (never an overflow tier's name); absent for a single clusterAffinity. */
  affinityName?: string;
  /**
   * With overflowAffinities on that term: which tier each cluster of `clusters` came from (cluster → the term's own
   * name or the overflow entry's name).
   */
  tiers?: Record<string, string>;
  /** Clusters the winning attempt's filters rejected, with why. */
  filtered: FilteredCluster[];
  lastScheduledTime: string;
  mode: ScheduleMode;
  attempts: GroupAttempt[];
}

export interface ScheduleFailure {
  ok: false;
  reason: ScheduleFailureReason;
  /** Names each group tried and why it failed, and says the previous assignment was kept. */
  message: string;
  /** The previous spec.clusters, left in place (unlike Karmada, which clears them on a fit error). */
  keptClusters: TargetCluster[];
  filtered: FilteredCluster[];
  mode: ScheduleMode;
  attempts: GroupAttempt[];
}

export type ScheduleResult = ScheduleSuccess | ScheduleFailure;

/**
 * Fresh mode iff spec.rescheduleTriggeredAt and status.lastScheduledTime are both set and the
 * trigger is strictly later; otherwise Steady (Karmada's RescheduleRequired).
 */
export function scheduleMode(binding: ResourceBinding): ScheduleMode {
  const trigger = binding.spec.rescheduleTriggeredAt;
  const last = binding.status?.lastScheduledTime;
  if (!trigger || !last) return 'Steady';
  return Date.parse(trigger) > Date.parse(last) ? 'Fresh' : 'Steady';
}

/**
 * Schedules one binding: the ordered clusterAffinities loop (or one attempt with the single
 * clusterAffinity), each attempt being filter → estimate → order → spread → divide.
 *
 * Groups resume at status.schedulerObservingAffinityName (0 when absent, unknown, or in Fresh
 * mode) and only move forward; any error moves on to the next group. Deliberate difference from
 * Karmada: when every attempt fails, the previous assignment is kept — also after a fit error,
 * which upstream answers by clearing spec.clusters (withdrawing running replicas during a network
 * partition). The failure reason follows the FIRST error, as upstream.
 */
export function scheduleBinding(input: ScheduleInput): ScheduleResult {
  const { binding, clusters, now } = input;
  const spec = binding.spec;
  const placement = spec.placement ?? {};
  const mode = scheduleMode(binding);
  const previous = spec.clusters ?? [];
  const attempts: GroupAttempt[] = [];

  let strategy: Strategy | undefined;
  let strategyError: ScheduleAttemptError | undefined;
  try {
    strategy = resolveStrategy(placement.replicaScheduling);
  } catch (e) {
    strategyError = e as ScheduleAttemptError;
  }

  const terms = placement.clusterAffinities;
  const groups: Group[] =
    !placement.clusterAffinity && terms && terms.length > 0
      ? terms.map((t) => ({ name: t.affinityName, affinity: t, term: t, overflow: overflowTiers(t) }))
      : [{ affinity: placement.clusterAffinity }];
  let start = 0;
  if (groups.length > 1 || groups[0]!.name !== undefined) {
    const observed = binding.status?.schedulerObservingAffinityName;
    if (mode === 'Steady' && observed) {
      const i = groups.findIndex((g) => g.name === observed);
      if (i >= 0) start = i;
    }
  }

  const ctx: AttemptContext = {
    binding,
    clusters,
    now,
    mode,
    previous,
    strategy,
    request: parseResourceRequest(spec.replicaRequirements?.resourceRequest),
    descendingNames: prefersDescendingNames(spec.resource.uid),
  };
  let firstKind: ScheduleErrorKind | undefined;
  for (let i = start; i < groups.length; i++) {
    const g = groups[i]!;
    const { filtered, feasible } = filterClusters({ clusters, spec, affinity: g.affinity, overflow: g.overflow, now });
    try {
      if (strategyError) throw strategyError;
      const { result, tiers } = attempt(ctx, g, feasible, filtered, clusters.length);
      attempts.push({ ...(g.name !== undefined && { affinityName: g.name }), ok: true, filtered });
      return {
        ok: true,
        clusters: result,
        ...(g.name !== undefined && { affinityName: g.name }),
        ...(tiers && { tiers }),
        filtered,
        lastScheduledTime: formatTime(now),
        mode,
        attempts,
      };
    } catch (e) {
      if (!(e instanceof ScheduleAttemptError)) throw e;
      firstKind ??= e.kind;
      attempts.push({ ...(g.name !== undefined && { affinityName: g.name }), ok: false, message: e.message, filtered });
    }
  }
  const reason: ScheduleFailureReason =
    firstKind === 'FitError' ? 'NoClusterFit' : firstKind === 'Unschedulable' ? 'Unschedulable' : 'SchedulerError';
  return {
    ok: false,
    reason,
    message: failureMessage(attempts, previous),
    keptClusters: previous.map((t) => ({ ...t })),
    filtered: attempts[0]?.filtered ?? [],
    mode,
    attempts,
  };
}

/** One affinity group to try: a clusterAffinities term (with its overflow tiers, if any) or the single affinity. */
interface Group {
  name?: string;
  affinity?: ClusterAffinity;
  term?: ClusterAffinityTerm;
  overflow?: ClusterAffinity[];
}

interface AttemptContext {
  binding: ResourceBinding;
  clusters: readonly Cluster[];
  now: Date;
  mode: ScheduleMode;
  previous: readonly TargetCluster[];
  strategy: Strategy | undefined;
  request: ReturnType<typeof parseResourceRequest>;
  descendingNames: boolean;
}

function attempt(
  ctx: AttemptContext,
  group: Group,
  feasible: Cluster[],
  filtered: FilteredCluster[],
  total: number,
): { result: TargetCluster[]; tiers?: Record<string, string> } {
  const spec = ctx.binding.spec;
  const placement = spec.placement ?? {};
  if (feasible.length === 0) throw new ScheduleAttemptError('FitError', fitErrorMessage(total, filtered));
  const strategy = ctx.strategy!;
  const desired = spec.replicas ?? 0;
  const hasSpread = (placement.spreadConstraints?.length ?? 0) > 0;
  const { term, overflow } = group;
  // Capacity only matters to the capacity-aware strategies, to spread-constraint ordering and to overflow tiers
  // (each takes up to its capacity); skipping the estimate otherwise keeps the Duplicated / static-weight path cheap.
  const needCapacity = hasSpread || strategy === 'DynamicWeight' || strategy === 'Aggregated' || overflow !== undefined;
  const own = new Map<string, number>();
  for (const t of ctx.previous) own.set(t.name, (own.get(t.name) ?? 0) + (t.replicas ?? 0));
  const candidates: Candidate[] = new Array(feasible.length);
  for (let i = 0; i < feasible.length; i++) {
    const cluster = feasible[i]!;
    const name = cluster.metadata.name ?? '';
    const mine = own.get(name);
    candidates[i] = {
      name,
      cluster,
      free: needCapacity ? estimateFreeReplicas(cluster, ctx.request, desired) : 0,
      own: mine ?? 0,
      score: mine !== undefined ? 100 : 0,
      tier: overflow && term ? clusterTier(cluster, term, overflow) : 0,
    };
  }
  // Candidate order only decides Aggregated prefixes and spread selection; Webster results do
  // not depend on input order, so the other strategies skip the sort.
  if (hasSpread || strategy === 'Aggregated') candidates.sort(compareCandidates);
  const selected = selectBySpreadConstraints(candidates, placement, strategy === 'Duplicated' ? undefined : desired);
  const result = assignReplicas({
    candidates: selected,
    strategy,
    placement,
    desired,
    hasRequirements: spec.replicaRequirements !== undefined,
    previous: ctx.previous,
    mode: ctx.mode,
    descendingNames: ctx.descendingNames,
    ...(overflow && { tierCount: overflow.length + 1 }),
  });
  if (!overflow || !term) return { result };
  const tierOf = new Map(selected.map((c) => [c.name, c.tier ?? 0]));
  const tiers: Record<string, string> = {};
  for (const t of result) tiers[t.name] = tierName(term, tierOf.get(t.name) ?? 0) ?? '';
  return { result, tiers };
}

/** Karmada's FitError wording: `0/3 clusters are available: 2 cluster(s) …, 1 cluster(s) ….` */
export function fitErrorMessage(total: number, filtered: readonly FilteredCluster[]): string {
  const counts = new Map<string, number>();
  for (const f of filtered) counts.set(f.reason, (counts.get(f.reason) ?? 0) + 1);
  const parts = [...counts].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([r, n]) => `${n} ${r}`);
  return `0/${total} clusters are available: ${parts.join(', ')}.`;
}

function failureMessage(attempts: readonly GroupAttempt[], previous: readonly TargetCluster[]): string {
  const why = attempts
    .map((a) => (a.affinityName !== undefined ? `group ${a.affinityName}: ${a.message}` : a.message))
    .join('; ');
  const kept =
    previous.length === 0
      ? 'no previous assignment to keep'
      : `previous assignment kept (${previous.map((t) => `${t.name}:${t.replicas ?? 0}`).join(', ')})`;
  return `${why}; ${kept}`;
}
