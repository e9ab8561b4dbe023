/**
 * "Why this count?": a workload's replica trail folded from the domain events of the objects that decide it. Pure;
 * the events are plain CloudEvents fields, so a replay of the stream gives the same trail as the live one.
 */

import type { KubeEventData } from '@flotilla/api';
import { OwnerConflictReasons, REPLICA_OWNER_CONFLICT, REPLICA_OWNER_CONFLICT_RESOLVED } from './owner-conflicts.js';
import {
  eventData,
  uncheckedPart,
  type FederatedHpaRescaledData,
  type MemberHpaAssignment,
  type OwnerConflictData,
  type Unchecked,
} from './trail-events.js';

/** One event as read from the stream (the CloudEvent's address, time and data; `type` without its prefix). */
export interface TrailEvent {
  type: string;
  kind: string;
  namespace?: string | undefined;
  name: string;
  time: string;
  data: unknown;
}

/** A member HPA's limits. */
export interface HpaLimits {
  minReplicas: number;
  maxReplicas: number;
}

/** A FederatedHPA's limits as far as known (a rule may set one of them only). */
export interface PartialLimits {
  minReplicas?: number;
  maxReplicas?: number;
}

/** An autoscaler's `ReplicaOwnerConflict` condition: its status and reason (`True`, `ForeignMemberHPA`). */
export interface ConditionValue {
  status: string;
  reason?: string;
}

export type TrailValue = number | HpaLimits | PartialLimits | ConditionValue;

/**
 * What changed: the template's `spec.replicas`, one cluster's share, one member HPA's min/max, an autoscaler's
 * limits, or an autoscaler's `ReplicaOwnerConflict` condition (another writer of the replicas seen, or gone).
 */
export type TrailField =
  | { kind: 'replicas' }
  | { kind: 'cluster'; cluster: string }
  | { kind: 'memberHpa'; cluster: string }
  | { kind: 'autoscalerLimits'; autoscaler: string }
  | { kind: 'ownerConflict'; autoscaler: string };

export interface TrailEntry {
  /** When it was decided (the event's time, RFC 3339). */
  time: string;
  field: TrailField;
  /** Before; null when unknown (the first change seen) or absent (a cluster that had no share). */
  from: TrailValue | null;
  /** After; null when removed (a cluster's share gone). */
  to: TrailValue | null;
  /** Who decided it, e.g. `CronFederatedHPA default/shop-cron rule scale-up`. */
  by: string;
  /** Why, in the decider's words. */
  why: string;
  /** The domain event type it was folded from. */
  event: string;
}

/** The replica-trail events the gateway publishes on a workload when an apply sets its `spec.replicas`. */
export const REPLICAS_APPLIED = 'ReplicasApplied';

interface State {
  replicas: number | null;
  clusters: Map<string, number>;
  hpas: Map<string, HpaLimits>;
  limits: Map<string, PartialLimits>;
  /** Each autoscaler's `ReplicaOwnerConflict` condition as last folded, by `Kind name`. */
  conflicts: Map<string, ConditionValue>;
  /** Who asked for the next Fresh rescheduling (a WorkloadRebalancer, a fail-back), until it is seen. */
  rescheduleBy?: string;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const ref = (e: TrailEvent) => `${e.kind} ${e.namespace ? `${e.namespace}/` : ''}${e.name}`;
const kubeMessage = (kubeEvent: unknown) => str(uncheckedPart<KubeEventData>(kubeEvent).message) ?? '';
const conditionOf = (d: Unchecked<OwnerConflictData>, type: string) => {
  const conditions = uncheckedPart<NonNullable<OwnerConflictData['statusPatch']>>(d.statusPatch).conditions;
  return Array.isArray(conditions)
    ? (conditions as unknown[]).map((c) => uncheckedPart<OwnerConflictCondition>(c)).find((c) => c.type === type)
    : undefined;
};
type OwnerConflictCondition = NonNullable<OwnerConflictData['statusPatch']>['conditions'][number];
const sameLimits = (a: PartialLimits | undefined, b: PartialLimits) =>
  a !== undefined && a.minReplicas === b.minReplicas && a.maxReplicas === b.maxReplicas;

/** Why the scheduler rescheduled, by its trigger (packages/scheduling's scheduleTrigger). */
const TRIGGER_WORDS: Readonly<Record<string, string>> = {
  ClusterEvicted: 'failover',
  RescheduleRequested: 'rescheduling asked for',
  ReplicasChanged: "the template's replicas changed",
  PlacementChanged: 'the placement changed',
  AlwaysScheduled: 'scheduling',
};

function setReplicas(s: State, out: TrailEntry[], e: TrailEvent, to: number, by: string, why: string, from?: number) {
  const before = from ?? s.replicas;
  s.replicas = to;
  if (before === to) return;
  out.push({ time: e.time, field: { kind: 'replicas' }, from: before, to, by, why, event: e.type });
}

function setClusters(
  s: State,
  out: TrailEntry[],
  e: TrailEvent,
  clusters: readonly unknown[],
  by: string,
  why: string,
) {
  const next = new Map<string, number>();
  for (const c of clusters.map((part) => uncheckedPart<{ name: string; replicas?: number }>(part))) {
    const name = str(c.name);
    const replicas = num(c.replicas);
    if (name !== undefined && replicas !== undefined) next.set(name, replicas);
  }
  for (const [cluster, to] of next) {
    const from = s.clusters.get(cluster);
    if (from !== to)
      out.push({ time: e.time, field: { kind: 'cluster', cluster }, from: from ?? null, to, by, why, event: e.type });
  }
  for (const [cluster, from] of s.clusters)
    if (!next.has(cluster))
      out.push({ time: e.time, field: { kind: 'cluster', cluster }, from, to: null, by, why, event: e.type });
  s.clusters = next;
}

/** A user through the gateway, as `ReplicasApplied` and the gateway's `ReplicaOwnerConflict` name them. */
const userThroughGateway = (d: Unchecked<{ caller?: string; via?: string }>) =>
  `${str(d.caller) ? `user ${str(d.caller)}` : 'a user'} through the gateway (${str(d.via) ?? 'api'})`;

/**
 * Who an owner conflict's entry names: the other writer of the replicas (the user whose apply was kept back, the
 * member HPAs Flotilla did not create), or the controller that saw the conflict go.
 */
function conflictBy(d: Unchecked<OwnerConflictData>, to: ConditionValue): string {
  // The hpa-assigner's replica-owners controller is the only one that clears the condition.
  if (to.status !== 'True') return 'hpa-assigner (replica-owners)';
  if (to.reason === OwnerConflictReasons.appliedReplicasRetained) return userThroughGateway(d);
  const hpas = Array.isArray(d.conflicts) ? (d.conflicts as unknown[]).flatMap((c) => str(c) ?? []) : [];
  return hpas.length
    ? `${hpas.map((h) => `member HPA ${h}`).join(', ')} (not created by Flotilla)`
    : 'a member HPA not created by Flotilla';
}

function apply(s: State, out: TrailEntry[], e: TrailEvent): void {
  switch (e.type) {
    case REPLICAS_APPLIED: {
      const d = eventData(REPLICAS_APPLIED, e.data);
      const to = num(d.toReplicas);
      if (to === undefined) return;
      const requested = num(d.requestedReplicas);
      const why = str(d.retainedBy)
        ? `apply asked for ${requested}; ${str(d.retainedBy)} scales this workload, its count is kept`
        : `apply (${str(d.outcome) ?? 'configured'})`;
      const from = d.fromReplicas === null ? undefined : num(d.fromReplicas);
      setReplicas(s, out, e, to, userThroughGateway(d), why, from);
      return;
    }
    case 'CronRuleExecuted': {
      const d = eventData('CronRuleExecuted', e.data);
      const by = `${ref(e)} rule ${str(d.ruleName) ?? '?'}`;
      const why = `scheduled at ${str(d.scheduleTime) ?? '?'}`;
      const replicas = num(d.appliedReplicas);
      if (replicas !== undefined) setReplicas(s, out, e, replicas, by, why);
      const min = num(d.appliedMinReplicas);
      const max = num(d.appliedMaxReplicas);
      if (min === undefined && max === undefined) return;
      // A rule aimed at the FederatedHPA sets its limits; the member HPAs follow in FederatedHPAAssigned.
      const target = str(d.target) ?? 'the FederatedHPA';
      const before = s.limits.get(target);
      const after: PartialLimits = { ...before };
      if (min !== undefined) after.minReplicas = min;
      if (max !== undefined) after.maxReplicas = max;
      s.limits.set(target, after);
      if (sameLimits(before, after)) return;
      out.push({
        time: e.time,
        field: { kind: 'autoscalerLimits', autoscaler: target },
        from: before ?? null,
        to: after,
        by,
        why,
        event: e.type,
      });
      return;
    }
    case 'EffectiveHPAScaled': {
      const d = eventData('EffectiveHPAScaled', e.data);
      const to = num(d.toReplicas);
      if (to === undefined) return;
      const source = str(d.source) ?? '?';
      const by = `${ref(e)} (${source === 'specificReplicas' ? 'specificReplicas' : `winning source: ${source}`})`;
      setReplicas(s, out, e, to, by, kubeMessage(d.kubeEvent), num(d.fromReplicas));
      return;
    }
    case 'FederatedHPARescaled': {
      const d = eventData('FederatedHPARescaled', e.data);
      const patch = uncheckedPart<FederatedHpaRescaledData['statusPatch']>(d.statusPatch);
      const to = num(patch.desiredReplicas);
      if (to === undefined) return;
      setReplicas(s, out, e, to, ref(e), kubeMessage(d.kubeEvent), num(patch.currentReplicas));
      return;
    }
    case 'FederatedHPAAssigned': {
      const d = eventData('FederatedHPAAssigned', e.data);
      const by = `${ref(e)} (${str(d.reason) ?? 'Assigned'})`;
      const why = kubeMessage(d.kubeEvent);
      const assignments = Array.isArray(d.assignments)
        ? (d.assignments as unknown[]).map((a) => uncheckedPart<MemberHpaAssignment>(a))
        : [];
      const next = new Map<string, HpaLimits>();
      for (const a of assignments) {
        const cluster = str(a.cluster);
        const min = num(a.minReplicas);
        const max = num(a.maxReplicas);
        if (cluster !== undefined && min !== undefined && max !== undefined)
          next.set(cluster, { minReplicas: min, maxReplicas: max });
      }
      for (const [cluster, to] of next) {
        const from = s.hpas.get(cluster);
        if (!sameLimits(from, to))
          out.push({
            time: e.time,
            field: { kind: 'memberHpa', cluster },
            from: from ?? null,
            to,
            by,
            why,
            event: e.type,
          });
      }
      for (const [cluster, from] of s.hpas)
        if (!next.has(cluster))
          out.push({ time: e.time, field: { kind: 'memberHpa', cluster }, from, to: null, by, why, event: e.type });
      s.hpas = next;
      if (Array.isArray(d.bindingClusters)) setClusters(s, out, e, d.bindingClusters, by, why);
      return;
    }
    case REPLICA_OWNER_CONFLICT:
    case REPLICA_OWNER_CONFLICT_RESOLVED: {
      const d = eventData(REPLICA_OWNER_CONFLICT, e.data);
      // The autoscaler's events carry its condition; the Warning on the workload carries none and says the same.
      const condition = conditionOf(d, REPLICA_OWNER_CONFLICT);
      const status = str(condition?.status);
      if (!condition || status === undefined) return;
      const reason = str(condition.reason);
      const to: ConditionValue = { status, ...(reason === undefined ? {} : { reason }) };
      const autoscaler = `${e.kind} ${e.name}`;
      const from = s.conflicts.get(autoscaler) ?? null;
      s.conflicts.set(autoscaler, to);
      // Every conflict is an entry, also one that repeats (an apply kept back again): the user did it again.
      out.push({
        time: e.time,
        field: { kind: 'ownerConflict', autoscaler },
        from,
        to,
        by: conflictBy(d, to),
        why: str(condition.message) ?? kubeMessage(d.kubeEvent),
        event: e.type,
      });
      return;
    }
    case 'WorkloadRescheduleTriggered':
      s.rescheduleBy = `WorkloadRebalancer ${str(eventData('WorkloadRescheduleTriggered', e.data).rebalancer) ?? '?'}`;
      return;
    case 'FailBackTriggered': {
      const d = eventData('FailBackTriggered', e.data);
      s.rescheduleBy = `fail-back from ${str(d.fromGroup) ?? '?'} to ${str(d.toGroup) ?? '?'}`;
      return;
    }
    case 'BindingScheduled': {
      const d = eventData('BindingScheduled', e.data);
      if (!Array.isArray(d.clusters)) return;
      const trigger = str(d.trigger);
      let by = `affinity-scheduler (${trigger ? (TRIGGER_WORDS[trigger] ?? trigger) : 'assignment kept'})`;
      if (trigger === 'RescheduleRequested' && s.rescheduleBy) {
        by = `affinity-scheduler (rebalance by ${s.rescheduleBy})`;
        delete s.rescheduleBy;
      }
      setClusters(s, out, e, d.clusters, by, kubeMessage(d.kubeEvent));
      return;
    }
  }
}

/**
 * What the fold knows after some events, as plain JSON: a projection stores it beside the entries so that the next
 * events continue the fold where it stopped (`resumeReplicaTrail`) instead of reading the stream from its start.
 */
export interface TrailState {
  replicas: number | null;
  clusters: Array<[cluster: string, replicas: number]>;
  hpas: Array<[cluster: string, limits: HpaLimits]>;
  limits: Array<[autoscaler: string, limits: PartialLimits]>;
  /** Absent in a state stored before owner conflicts were folded (none had been, then). */
  conflicts?: Array<[autoscaler: string, condition: ConditionValue]>;
  rescheduleBy?: string;
}

export const initialTrailState = (): TrailState => ({
  replicas: null,
  clusters: [],
  hpas: [],
  limits: [],
  conflicts: [],
});

/**
 * Continues a fold from `from` over the next events, in stream order: the new entries and the state after them.
 * Folding a stream in two parts this way gives the same entries as folding it whole.
 */
export function resumeReplicaTrail(
  from: TrailState,
  events: Iterable<TrailEvent>,
): { entries: TrailEntry[]; state: TrailState } {
  const s: State = {
    replicas: from.replicas,
    clusters: new Map(from.clusters),
    hpas: new Map(from.hpas),
    limits: new Map(from.limits),
    conflicts: new Map(from.conflicts ?? []),
    ...(from.rescheduleBy === undefined ? {} : { rescheduleBy: from.rescheduleBy }),
  };
  const entries: TrailEntry[] = [];
  for (const e of events) apply(s, entries, e);
  const state: TrailState = {
    replicas: s.replicas,
    clusters: [...s.clusters],
    hpas: [...s.hpas],
    limits: [...s.limits],
    conflicts: [...s.conflicts],
    ...(s.rescheduleBy === undefined ? {} : { rescheduleBy: s.rescheduleBy }),
  };
  return { entries, state };
}

/** Folds events, in stream order, into the trail of every change of the workload's replicas, oldest first. */
export function foldReplicaTrail(events: Iterable<TrailEvent>): TrailEntry[] {
  return resumeReplicaTrail(initialTrailState(), events).entries;
}

/** A trail value as one line prints it: `5`, `min 1 max 4`, `True (ForeignMemberHPA)`, or `-`. */
export function formatTrailValue(v: TrailValue | null): string {
  if (v === null) return '-';
  if (typeof v === 'number') return String(v);
  if ('status' in v) return v.reason ? `${v.status} (${v.reason})` : v.status;
  const parts = [
    ...(v.minReplicas === undefined ? [] : [`min ${v.minReplicas}`]),
    ...(v.maxReplicas === undefined ? [] : [`max ${v.maxReplicas}`]),
  ];
  return parts.join(' ') || '-';
}

/**
 * A trail field as one line prints it: `spec.replicas`, `cluster member1`, `member HPA member1`,
 * `FederatedHPA web min/max`, `FederatedHPA web ReplicaOwnerConflict`.
 */
export function formatTrailField(f: TrailField): string {
  switch (f.kind) {
    case 'replicas':
      return 'spec.replicas';
    case 'cluster':
      return `cluster ${f.cluster}`;
    case 'memberHpa':
      return `member HPA ${f.cluster}`;
    case 'autoscalerLimits':
      return `${f.autoscaler} min/max`;
    case 'ownerConflict':
      return `${f.autoscaler} ${REPLICA_OWNER_CONFLICT}`;
  }
}
