/**
 * Owner conflicts found while running: a HorizontalPodAutoscaler in a member cluster that Flotilla did not create,
 * aimed at a workload a Flotilla autoscaler scales, so two controllers write the member workload's replicas
 * (karmada-io/karmada#1273, #2806). Pure: the member clusters' reports, the autoscaler and its current condition
 * and the time come in; the condition to set and the events to record go out.
 */
import type { Condition, ForeignHorizontalPodAutoscaler } from '@flotilla/api';
import { type AutoscalerLike, scaleTargetOf, type WorkloadRef } from './refs.js';

/** The condition type, on FederatedHPA, EffectiveHorizontalPodAutoscaler and CronFederatedHPA. */
export const REPLICA_OWNER_CONFLICT = 'ReplicaOwnerConflict';

/** The domain event on the autoscaler when its conflict clears (a conflict is `ReplicaOwnerConflict`). */
export const REPLICA_OWNER_CONFLICT_RESOLVED = 'ReplicaOwnerConflictResolved';

/** The condition's reasons: why it is True (a member HPA; an apply whose count was kept), or that it cleared. */
export const OwnerConflictReasons = {
  /** A member cluster runs an HPA Flotilla did not create on the autoscaler's workload. */
  foreignMemberHpa: 'ForeignMemberHPA',
  /** A user's apply set the workload's replicas; the autoscaler's count was kept (the gateway's retain). */
  appliedReplicasRetained: 'AppliedReplicasRetained',
  /** No other writer is seen any more. */
  noConflict: 'NoConflict',
} as const;

/**
 * How long the condition keeps showing a conflict that happened once (an apply, whose count was kept) before it
 * clears: a foreign member HPA is a state, seen as long as it lasts; an apply is a moment. Counted from the latest
 * such apply: one made again within the hold restarts it (the user did it again, they are told again).
 */
export const ONE_TIME_CONFLICT_HOLD_MS = 10 * 60_000;

/**
 * The condition the gateway sets on the autoscaler whose count an apply kept: True (AppliedReplicasRetained), with
 * `lastUpdateTime` the apply's time. The status writer moves `lastTransitionTime` only when the status changes, so
 * a second apply while the first one's condition stands is told apart by `lastUpdateTime` alone.
 */
export function appliedReplicasRetainedCondition(message: string, appliedAt: Date): Condition {
  return {
    type: REPLICA_OWNER_CONFLICT,
    status: 'True',
    reason: OwnerConflictReasons.appliedReplicasRetained,
    message,
    lastUpdateTime: appliedAt.toISOString(),
  };
}

/**
 * When a one-time conflict's condition clears: ONE_TIME_CONFLICT_HOLD_MS after the latest apply that set it
 * (`lastUpdateTime`; `lastTransitionTime` for a condition written before that field). Undefined for a condition
 * that is not a standing one-time conflict, or that tells no time (it is then never cleared by time).
 */
export function oneTimeConflictHoldEnd(c: Condition | undefined): Date | undefined {
  if (c?.status !== 'True' || c.reason !== OwnerConflictReasons.appliedReplicasRetained) return undefined;
  const since = Date.parse(c.lastUpdateTime ?? c.lastTransitionTime ?? '');
  return Number.isNaN(since) ? undefined : new Date(since + ONE_TIME_CONFLICT_HOLD_MS);
}

const FHPA = 'FederatedHPA';

/**
 * The workload whose replicas an autoscaler writes: its target, or for a CronFederatedHPA aimed at a FederatedHPA,
 * that FederatedHPA's target. Undefined when the target is not (or not yet) known.
 */
export function scaledWorkload(
  autoscaler: AutoscalerLike,
  federatedHpas: readonly AutoscalerLike[],
): WorkloadRef | undefined {
  const ns = autoscaler.metadata.namespace;
  let target = scaleTargetOf(autoscaler);
  if (autoscaler.kind === 'CronFederatedHPA' && target?.kind === FHPA) {
    const fhpa = federatedHpas.find((f) => f.metadata.name === target!.name && f.metadata.namespace === ns);
    target = fhpa ? scaleTargetOf(fhpa) : undefined;
  }
  return target?.kind && target.name ? { kind: target.kind, namespace: ns, name: target.name } : undefined;
}

export interface OwnerConflictInput {
  autoscaler: AutoscalerLike;
  /** The FederatedHPAs of the autoscaler's namespace (a CronFederatedHPA may aim at one). */
  federatedHpas: readonly AutoscalerLike[];
  /** Every member cluster's foreign HPAs, by cluster name. */
  foreignByCluster: ReadonlyMap<string, readonly ForeignHorizontalPodAutoscaler[]>;
  /** The autoscaler's `ReplicaOwnerConflict` condition now, if it has one. */
  current?: Condition | undefined;
  now: Date;
}

export interface OwnerConflictEvent {
  on: WorkloadRef;
  type: 'Warning' | 'Normal';
  reason: string;
  message: string;
}

export interface OwnerConflictDecision {
  /** The condition to set; undefined when the current one stands (or there is none and nothing to say). */
  condition?: Condition;
  /** The foreign HPAs in conflict, as `cluster/namespace/name`, sorted. */
  conflicts: string[];
  events: OwnerConflictEvent[];
}

const refText = (r: WorkloadRef) => `${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name}`;

/**
 * Decides the autoscaler's `ReplicaOwnerConflict` condition: True (ForeignMemberHPA) while a member cluster reports
 * an HPA Flotilla did not create on its workload, naming them; a Warning `ReplicaOwnerConflict` on the autoscaler
 * and on the workload, naming both, whenever that set changes. Once none is left, False (NoConflict), with a Normal
 * event. A one-time conflict (AppliedReplicasRetained) is left standing until its hold ends (oneTimeConflictHoldEnd).
 */
export function decideOwnerConflict(input: OwnerConflictInput): OwnerConflictDecision {
  const { autoscaler, current } = input;
  const workload = scaledWorkload(autoscaler, input.federatedHpas);
  const self: WorkloadRef = {
    kind: autoscaler.kind,
    namespace: autoscaler.metadata.namespace,
    name: autoscaler.metadata.name,
  };
  const conflicts: string[] = [];
  if (workload)
    for (const [cluster, hpas] of input.foreignByCluster)
      for (const h of hpas)
        if (
          (h.namespace ?? 'default') === workload.namespace &&
          h.scaleTargetRef.kind === workload.kind &&
          h.scaleTargetRef.name === workload.name
        )
          conflicts.push(`${cluster}/${h.namespace ?? 'default'}/${h.name}`);
  conflicts.sort();

  if (conflicts.length > 0 && workload) {
    const hpas = conflicts.map((c) => `HorizontalPodAutoscaler ${c}`).join(', ');
    const message = `${hpas} (not created by Flotilla) also ${conflicts.length > 1 ? 'scale' : 'scales'} ${refText(workload)} in its member cluster, which ${refText(self)} scales: two writers of its replicas; remove the member HPA or the autoscaler`;
    if (current?.status === 'True' && current.message === message) return { conflicts, events: [] };
    const warning = { type: 'Warning', reason: REPLICA_OWNER_CONFLICT, message } as const;
    return {
      condition: {
        type: REPLICA_OWNER_CONFLICT,
        status: 'True',
        reason: OwnerConflictReasons.foreignMemberHpa,
        message,
      },
      conflicts,
      events: [
        { on: self, ...warning },
        { on: workload, ...warning },
      ],
    };
  }
  if (current?.status !== 'True') return { conflicts, events: [] };
  if (current.reason === OwnerConflictReasons.appliedReplicasRetained) {
    const end = oneTimeConflictHoldEnd(current);
    if (end === undefined || input.now.getTime() < end.getTime()) return { conflicts, events: [] };
  }
  const message = `no other writer of ${workload ? refText(workload) : 'its target'}'s replicas is seen`;
  return {
    condition: { type: REPLICA_OWNER_CONFLICT, status: 'False', reason: OwnerConflictReasons.noConflict, message },
    conflicts,
    events: [{ on: self, type: 'Normal', reason: 'ReplicaOwnerConflictResolved', message }],
  };
}
