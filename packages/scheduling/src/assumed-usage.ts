import type { ParsedRequest, Usage } from './request.js';

/** Replicas a binding asks of one cluster, as in `spec.clusters`. */
export interface AssignedReplicas {
  name: string;
  replicas?: number | undefined;
}

/**
 * What this scheduler has assigned to each cluster that the cluster has not reported yet: kube-scheduler's "assume"
 * cache, per cluster instead of per node. A cluster's `resourceSummary` lags the scheduler's own decisions (the
 * member reports what it runs, a tick later), so a burst of decisions read from the summary alone overcommits a
 * cluster many times over. Each binding contributes, per cluster, `max(0, assigned − reported)` replicas times its
 * per-replica request (and one pod each); the contribution shrinks to nothing as the member's report catches up and
 * goes when the assignment does.
 *
 * State is derived, never persisted: a new leader rebuilds it from the bindings and their reported status. The
 * per-cluster totals are live maps, so cluster views can hold them without being rebuilt on every decision.
 */
export class AssumedUsage {
  private readonly byBinding = new Map<string, Map<string, Map<string, number>>>();
  private readonly totals = new Map<string, Map<string, number>>();

  /**
   * Sets one binding's contribution from its assignment, what each cluster reported for it (`status.replicas` of
   * its aggregated status entry; absent = nothing reported) and its per-replica request.
   */
  set(
    bindingKey: string,
    assigned: readonly AssignedReplicas[],
    reported: ReadonlyMap<string, number>,
    request: ParsedRequest | undefined,
  ): void {
    const next = new Map<string, Map<string, number>>();
    for (const target of assigned) {
      const pending = Math.max(0, (target.replicas ?? 0) - (reported.get(target.name) ?? 0));
      if (pending === 0) continue;
      const usage = new Map<string, number>([['pods', pending]]);
      for (const [name, amount] of request?.entries ?? []) if (name !== 'pods') usage.set(name, amount * pending);
      next.set(target.name, usage);
    }
    this.apply(bindingKey, next);
  }

  delete(bindingKey: string): void {
    this.apply(bindingKey, new Map());
  }

  /** The live total for a cluster (the same map object for the cluster's lifetime in this cache). */
  usageOf(cluster: string): Usage {
    let total = this.totals.get(cluster);
    if (!total) {
      total = new Map();
      this.totals.set(cluster, total);
    }
    return total;
  }

  /** The replicas of a binding that are assumed in a cluster (for logs and tests). */
  assumedPods(bindingKey: string, cluster: string): number {
    return this.byBinding.get(bindingKey)?.get(cluster)?.get('pods') ?? 0;
  }

  private apply(bindingKey: string, next: Map<string, Map<string, number>>): void {
    const previous = this.byBinding.get(bindingKey);
    if (previous) for (const [cluster, usage] of previous) this.add(cluster, usage, -1);
    for (const [cluster, usage] of next) this.add(cluster, usage, 1);
    if (next.size) this.byBinding.set(bindingKey, next);
    else this.byBinding.delete(bindingKey);
  }

  private add(cluster: string, usage: Map<string, number>, sign: 1 | -1): void {
    const total = this.usageOf(cluster) as Map<string, number>;
    for (const [name, amount] of usage) {
      const v = (total.get(name) ?? 0) + sign * amount;
      if (v === 0) total.delete(name);
      else total.set(name, v);
    }
  }
}
