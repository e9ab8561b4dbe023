import type { Candidate } from './candidate.js';
import { tierCapacity } from './candidate.js';
import { ScheduleAttemptError } from './errors.js';
import { ignoresSpreadConstraints } from './strategy.js';
import type { Placement, SpreadConstraint } from './types.js';
import { compareNames } from './webster.js';

/**
 * Karmada's SelectBestClusters: narrows the ordered candidates by spreadConstraints (region,
 * then cluster). `needReplicas` is undefined for Duplicated (capacity is then not consulted).
 * Without constraints, or with static weights, every candidate stays.
 */
export function selectBySpreadConstraints(
  candidates: readonly Candidate[],
  placement: Placement,
  needReplicas: number | undefined,
): Candidate[] {
  const constraints = placement.spreadConstraints;
  if (!constraints || constraints.length === 0 || ignoresSpreadConstraints(placement)) return candidates.slice();
  const byField = new Map<string, SpreadConstraint>();
  for (const c of constraints) if (c.spreadByField) byField.set(c.spreadByField, c);
  const region = byField.get('region');
  const cluster = byField.get('cluster');
  if (region) return byRegion(candidates, region, cluster);
  if (cluster) return byCluster(candidates, cluster, needReplicas);
  throw new ScheduleAttemptError('SchedulerError', 'just support cluster and region spread constraint');
}

// An absent maxGroups is taken as "no upper bound" (upstream's zero value would select nothing;
// admission is expected to default or reject it).
function maxOf(c: SpreadConstraint | undefined, fallback: number): number {
  return c?.maxGroups === undefined || c.maxGroups <= 0 ? fallback : c.maxGroups;
}

function byCluster(
  candidates: readonly Candidate[],
  c: SpreadConstraint,
  needReplicas: number | undefined,
): Candidate[] {
  const total = candidates.length;
  const min = c.minGroups ?? 1;
  if (total < min) {
    throw new ScheduleAttemptError(
      'SchedulerError',
      'the number of feasible clusters is less than spreadConstraint.MinGroups',
    );
  }
  const max = maxOf(c, total);
  const needCnt = Math.min(max, total);
  if (needReplicas === undefined) return candidates.slice(0, needCnt);
  const groups = candidates.map((x) => ({ name: x.name, value: tierCapacity(x), weight: x.score }));
  const chosen = selectGroups(groups, min, max, needReplicas);
  if (chosen.length === 0)
    throw new ScheduleAttemptError('Unschedulable', `no enough resource when selecting ${needCnt} clusters`);
  const byName = new Map(candidates.map((x) => [x.name, x]));
  return chosen.map((g) => byName.get(g.name)!);
}

// Region score is the sum of its clusters' scores (a simplification of upstream's grouping score);
// each region's clusters keep candidate order, so its first is its best.
function byRegion(
  candidates: readonly Candidate[],
  region: SpreadConstraint,
  cluster: SpreadConstraint | undefined,
): Candidate[] {
  const regions = new Map<string, { clusters: Candidate[]; score: number }>();
  for (const c of candidates) {
    const r = c.cluster.spec?.region ?? '';
    let e = regions.get(r);
    if (!e) regions.set(r, (e = { clusters: [], score: 0 }));
    e.clusters.push(c);
    e.score += c.score;
  }
  const regionMin = region.minGroups ?? 1;
  if (regions.size < regionMin) {
    throw new ScheduleAttemptError(
      'SchedulerError',
      'the number of feasible region is less than spreadConstraint.MinGroups',
    );
  }
  const groups = [...regions].map(([name, e]) => ({ name, value: e.clusters.length, weight: e.score }));
  const chosen = selectGroups(groups, regionMin, maxOf(region, regions.size), cluster?.minGroups ?? 0);
  if (chosen.length === 0) {
    throw new ScheduleAttemptError(
      'SchedulerError',
      'the number of clusters is less than the cluster spreadConstraint.MinGroups',
    );
  }
  const selected: Candidate[] = [];
  const rest: Candidate[] = [];
  for (const g of chosen) {
    const e = regions.get(g.name)!;
    selected.push(e.clusters[0]!);
    rest.push(...e.clusters.slice(1));
  }
  // Without a cluster constraint upstream's zero MaxGroups means one cluster per region.
  const needCnt = Math.min(selected.length + rest.length, cluster ? maxOf(cluster, selected.length + rest.length) : 0);
  const restCnt = needCnt - selected.length;
  if (restCnt > 0) {
    rest.sort((a, b) => tierCapacity(b) - tierCapacity(a));
    selected.push(...rest.slice(0, restCnt));
  }
  return selected;
}

export interface Group {
  name: string;
  value: number;
  weight: number;
}

/** Bound on the depth-first search so a wide maxGroups over many clusters cannot stall a worker. */
const MAX_PATHS = 10_000;

/**
 * Karmada's selectGroups: enumerate, depth first over groups sorted by value ascending (then
 * weight descending, then name), every combination of minGroups..maxGroups groups whose values
 * reach `target`; prefer the highest total weight, then the highest total value, then the first
 * found; a feasible prefix of the winner (both sorted by weight, name) is preferred to it.
 * Returns [] when nothing is feasible.
 */
export function selectGroups(groups: readonly Group[], min: number, max: number, target: number): Group[] {
  if (groups.length === 0) return [];
  const sorted = groups
    .slice()
    .sort((a, b) => a.value - b.value || b.weight - a.weight || compareNames(a.name, b.name));
  const paths: { id: number; groups: Group[]; weight: number; value: number }[] = [];
  const stack: Group[] = [];
  const dfs = (sum: number, begin: number): void => {
    if (paths.length >= MAX_PATHS) return;
    if (sum >= target && stack.length >= min && stack.length <= max) {
      const gs = stack.slice().sort((a, b) => b.weight - a.weight || compareNames(a.name, b.name));
      let w = 0;
      let v = 0;
      for (const g of gs) {
        w += g.weight;
        v += g.value;
      }
      paths.push({ id: paths.length + 1, groups: gs, weight: w, value: v });
      return;
    }
    if (stack.length >= max) return;
    for (let i = begin; i < sorted.length; i++) {
      stack.push(sorted[i]!);
      dfs(sum + sorted[i]!.value, i + 1);
      stack.pop();
    }
  };
  dfs(0, 0);
  if (paths.length === 0) return [];
  paths.sort((a, b) => b.weight - a.weight || b.value - a.value || a.id - b.id);
  let best = paths[0]!;
  for (let i = 1; i < paths.length; i++) {
    const p = paths[i]!;
    if (p.groups.length < best.groups.length && p.groups.every((g, j) => best.groups[j]!.name === g.name)) best = p;
  }
  return best.groups;
}
