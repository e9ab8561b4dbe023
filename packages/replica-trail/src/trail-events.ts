/**
 * The catalogue of the domain events a replica trail is folded from (and `flotilla events` words): each type and
 * the data its producer publishes. Producers build their data as these types (or from the packages named here), and
 * readers reach the fields through `eventData`, so that a producer renaming a field breaks the compile of the
 * readers instead of silently emptying "why this count?". docs/design/events.md has the whole list of events.
 */
import type { Condition, KubeEventData } from '@flotilla/api';
import type { CronNextScheduledData, CronRuleExecutedData } from '@flotilla/cron';
import type { WorkloadRescheduleTriggeredData } from '@flotilla/rebalance';

/** `ReplicasApplied` (gateway): an apply set a workload's `spec.replicas`. */
export interface ReplicasAppliedData {
  /** The stored value before, null when the apply created the workload or it had none. */
  fromReplicas: number | null;
  /** The value the apply asked for. */
  requestedReplicas: number;
  /** The value stored: the requested one, or the autoscaler's when it keeps its count (retain). */
  toReplicas: number;
  /** The token's name, where the caller presented one. */
  caller?: string;
  /** The gateway's front door the request came through (`http` or `nats`). */
  via: string;
  outcome: 'created' | 'configured';
  /** The autoscaler whose count was kept instead of the requested one (`FederatedHPA shop`). */
  retainedBy?: string;
  kubeEvent?: KubeEventData;
}

/** `EffectiveHPAScaled` (hpa-assigner): the template's replicas written by an EffectiveHPA. */
export interface EffectiveHpaScaledData {
  /** The source that won (`cron`, `prediction`, `observed`, …) or `specificReplicas`. */
  source: string;
  fromReplicas: number;
  toReplicas: number;
  statusPatch: object;
  kubeEvent?: KubeEventData;
}

/** `FederatedHPARescaled` (hpa-assigner, Karmada's shipped mode): the template's replicas written. */
export interface FederatedHpaRescaledData {
  statusPatch: { currentReplicas: number; desiredReplicas: number };
  kubeEvent?: KubeEventData;
}

/** One member HPA's assigned limits. */
export interface MemberHpaAssignment {
  cluster: string;
  minReplicas: number;
  maxReplicas: number;
}

/** `FederatedHPAAssigned` (hpa-assigner, the assignment mode): member min/max assigned or moved. */
export interface FederatedHpaAssignedData {
  reason: string;
  assignments: readonly MemberHpaAssignment[];
  moves: readonly unknown[];
  /** Each member workload's replicas as written to the target binding. */
  bindingClusters: ReadonlyArray<{ name: string; replicas?: number }>;
  statusPatch: object;
  kubeEvent?: KubeEventData;
}

/** `ReplicaOwnerConflict` and `ReplicaOwnerConflictResolved` (gateway, hpa-assigner's replica-owners controller). */
export interface OwnerConflictData {
  /** The foreign member HPAs in conflict (`cluster/namespace/name`), from the replica-owners controller. */
  conflicts?: readonly string[];
  /** The autoscaler in conflict (`Kind name`), on every replica-owners event. */
  autoscaler?: string;
  /** The workload whose apply was kept back (`Kind/name`), on the gateway's. */
  workload?: string;
  /** Who applied (the gateway's conflicts), as `ReplicasApplied` names them. */
  caller?: string;
  via?: string;
  /** The autoscaler's condition; absent on the workload's Warning. */
  statusPatch?: { conditions: readonly Condition[] };
  kubeEvent?: KubeEventData;
}

/** `FailBackTriggered` (rebalancer's fail-back): a binding sent back to an earlier affinity group. */
export interface FailBackTriggeredData {
  fromGroup: string;
  toGroup: string;
  rescheduleTriggeredAt: string;
  holdingSince: string;
  kubeEvent: KubeEventData;
  /** The hold's record cleared and `lastFailBackTime` set on the binding's status (the fleet budget counts it). */
  statusPatch?: { failBack: null; lastFailBackTime: string };
}

/** `BindingScheduled` (affinity-scheduler): a binding's clusters, and why they were chosen. */
export interface BindingScheduledData {
  clusters: ReadonlyArray<{ name: string; replicas?: number }>;
  /** The scheduling trigger (packages/scheduling's scheduleTrigger); absent when an assignment was kept. */
  trigger?: string;
  kubeEvent?: KubeEventData;
}

/** The catalogue: each event type the trail reads, with its data. */
export interface TrailEventCatalogue {
  ReplicasApplied: ReplicasAppliedData;
  CronRuleExecuted: CronRuleExecutedData;
  CronNextScheduled: CronNextScheduledData;
  EffectiveHPAScaled: EffectiveHpaScaledData;
  FederatedHPARescaled: FederatedHpaRescaledData;
  FederatedHPAAssigned: FederatedHpaAssignedData;
  ReplicaOwnerConflict: OwnerConflictData;
  ReplicaOwnerConflictResolved: OwnerConflictData;
  WorkloadRescheduleTriggered: WorkloadRescheduleTriggeredData;
  FailBackTriggered: FailBackTriggeredData;
  BindingScheduled: BindingScheduledData;
}

export type TrailEventType = keyof TrailEventCatalogue;

/**
 * An event's data as a reader gets it from the stream: the catalogue's fields and no others, each still to be
 * checked (an event written by an older producer, or replayed, may lack one or carry another shape).
 */
export type Unchecked<T> = { readonly [K in keyof T]?: unknown };

/** The data of an event of `type`, its fields named by the catalogue (not yet checked: see Unchecked). */
export function eventData<T extends TrailEventType>(_type: T, data: unknown): Unchecked<TrailEventCatalogue[T]> {
  return data !== null && typeof data === 'object' ? (data as Unchecked<TrailEventCatalogue[T]>) : {};
}

/** A nested part of an event's data (a status patch, an assignment), its fields named by `T`. */
export function uncheckedPart<T>(part: unknown): Unchecked<T> {
  return part !== null && typeof part === 'object' ? (part as Unchecked<T>) : {};
}
