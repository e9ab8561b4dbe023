import { applyStatusPatch, type Condition, type KubeEventData } from '@flotilla/api';
import { eventTypeOf, type CloudEvent } from '@flotilla/bus';

/** Folds one domain event into an object's status. Pure: the same events in the same order give the same status. */
export type Reducer = (status: Status | undefined, event: CloudEvent) => Status;
export type Status = Record<string, unknown>;

/**
 * What every domain event may carry for the status writer (see docs/design/events.md):
 * `statusPatch` replaces top-level status fields, except `conditions`, which merge by type with Kubernetes
 * semantics (lastTransitionTime moves only when the condition's status changes, taken from the event's time).
 * A field set to null is removed, as in a JSON merge patch. The fold is applyStatusPatch (@flotilla/api), which
 * offline tools (what-if) use too.
 */
export interface StatusData {
  statusPatch?: Status;
  kubeEvent?: KubeEventData;
  /** Several Kubernetes-style events (a member-agent's report of several clusters, one each). */
  kubeEvents?: KubeEventData[];
}

/** The reducer for every event without a dedicated one: apply `data.statusPatch`. */
export const patchReducer: Reducer = (status, event) => {
  const patch = (event.data as StatusData | undefined)?.statusPatch;
  if (!patch) return status ?? {};
  return applyStatusPatch(status, patch, event.time);
};

/**
 * `WorkloadStatusReported` (from member-agents): one entry of Karmada's `status.aggregatedStatus` per member
 * cluster, kept sorted by cluster name.
 */
export const workloadStatusReducer: Reducer = (status, event) => {
  type ClusterReport = {
    clusterName: string;
    applied: boolean;
    health?: string;
    status?: unknown;
    appliedMessage?: string;
    removed?: boolean;
  };
  const d = event.data as ClusterReport & { targetClusters?: string[]; reports?: ClusterReport[] };
  // One cluster's report, or (a member-agent speaking for several clusters) the reports of each in one event.
  const reports = Array.isArray(d.reports) ? d.reports : [d];
  const reported = new Set(reports.map((r) => r.clusterName));
  const items = ((status?.aggregatedStatus as Array<{ clusterName: string }> | undefined) ?? []).filter(
    (i) => !reported.has(i.clusterName),
  );
  for (const r of reports) {
    if (r.removed) continue;
    items.push({
      clusterName: r.clusterName,
      applied: r.applied,
      ...(r.health ? { health: r.health } : {}),
      ...(r.appliedMessage ? { appliedMessage: r.appliedMessage } : {}),
      ...(r.status !== undefined ? { status: r.status } : {}),
    } as { clusterName: string });
  }
  items.sort((a, b) => a.clusterName.localeCompare(b.clusterName));
  const folded = patchReducer({ ...(status ?? {}), aggregatedStatus: items }, event);
  if (!d.targetClusters) return folded; // a report from before the field existed: the condition stays as it was
  return applyStatusPatch(
    folded,
    {
      conditions: [
        fullyAppliedCondition(d.targetClusters, items as AggregatedStatusItem[]),
        podsScheduledCondition(d.targetClusters, items as AggregatedStatusItem[]),
      ],
    },
    event.time,
  );
};

interface AggregatedStatusItem {
  clusterName: string;
  applied: boolean;
  status?: { replicas?: number; pendingReplicas?: number };
}

/**
 * Flotilla's `PodsScheduled` condition of a binding, beside Karmada's FullyApplied (which means applied, not running):
 * False with reason PodsPending while a target cluster reports pods of the workload Pending (its scheduler found no
 * node for them), naming each such cluster with its Pending and desired pods; True otherwise.
 */
export function podsScheduledCondition(
  targetClusters: readonly string[],
  aggregatedStatus: readonly AggregatedStatusItem[],
): Condition {
  const targets = new Set(targetClusters);
  const pending = aggregatedStatus.filter((i) => targets.has(i.clusterName) && (i.status?.pendingReplicas ?? 0) > 0);
  if (pending.length === 0)
    return {
      type: 'PodsScheduled',
      status: 'True',
      reason: 'NoPodsPending',
      message: 'No member cluster reports pods of the workload Pending',
    };
  const where = pending.map((i) => `${i.clusterName} ${i.status!.pendingReplicas}/${i.status!.replicas ?? 0}`);
  return {
    type: 'PodsScheduled',
    status: 'False',
    reason: 'PodsPending',
    message: `Pods Pending, no node fits them (cluster pending/desired): ${where.join(', ')}`,
  };
}

/**
 * Karmada's `FullyApplied` condition of a binding: True when every target cluster, and only those, reported the
 * workload applied; False with Karmada's reason and message otherwise (also while nothing is scheduled).
 */
export function fullyAppliedCondition(
  targetClusters: readonly string[],
  aggregatedStatus: readonly AggregatedStatusItem[],
): Condition {
  const targets = new Set(targetClusters);
  const fully =
    targets.size > 0 &&
    aggregatedStatus.length === targets.size &&
    aggregatedStatus.every((i) => i.applied && targets.has(i.clusterName));
  return fully
    ? {
        type: 'FullyApplied',
        status: 'True',
        reason: 'FullyAppliedSuccess',
        message: 'All works have been successfully applied',
      }
    : {
        type: 'FullyApplied',
        status: 'False',
        reason: 'FullyAppliedFailed',
        message: 'Failed to apply all works, see status.aggregatedStatus for details',
      };
}

export class ReducerRegistry {
  private readonly byType = new Map<string, Reducer>();
  constructor(private readonly fallback: Reducer = patchReducer) {}
  register(type: string, r: Reducer): this {
    this.byType.set(type, r);
    return this;
  }
  fold(status: Status | undefined, event: CloudEvent): Status {
    return (this.byType.get(eventTypeOf(event)) ?? this.fallback)(status, event);
  }

  /**
   * Whether `event` leaves every status as it is, so that folding it needs neither a read nor a write: folded by the
   * patch reducer with no patch (a template's ReplicasApplied, say).
   */
  changesNothing(event: CloudEvent): boolean {
    const reducer = this.byType.get(eventTypeOf(event)) ?? this.fallback;
    return reducer === patchReducer && (event.data as StatusData | undefined)?.statusPatch === undefined;
  }
}
