import { REPLICAS_APPLIED } from './fold.js';
import { REPLICA_OWNER_CONFLICT, REPLICA_OWNER_CONFLICT_RESOLVED } from './owner-conflicts.js';
import { type AutoscalerLike, scaleTargetOf, type WorkloadRef } from './refs.js';

/** The exact event subject parts to read (packages/bus's EventAddress). */
export interface TrailAddress {
  kind: string;
  namespace?: string | undefined;
  name: string;
  type: string;
}

/** The kinds whose objects aim at a workload's replicas, as `trailAddresses` reads them. */
export const TRAIL_AUTOSCALER_KINDS = ['FederatedHPA', 'EffectiveHorizontalPodAutoscaler', 'CronFederatedHPA'] as const;

/** Every event type `trailAddresses` reads: an event of another type never changes a trail. */
export const TRAIL_EVENT_TYPES: ReadonlySet<string> = new Set([
  REPLICAS_APPLIED,
  'WorkloadRescheduleTriggered',
  'BindingScheduled',
  'FailBackTriggered',
  'FederatedHPAAssigned',
  'FederatedHPARescaled',
  'EffectiveHPAScaled',
  'CronRuleExecuted',
  REPLICA_OWNER_CONFLICT,
  REPLICA_OWNER_CONFLICT_RESOLVED,
]);

const FHPA = 'FederatedHPA';
const EHPA = 'EffectiveHorizontalPodAutoscaler';
const CRON = 'CronFederatedHPA';

const targets = (a: AutoscalerLike, kind: string, name: string) => {
  const ref = scaleTargetOf(a);
  return ref?.kind === kind && ref.name === name;
};

/**
 * The event addresses that hold a workload's replica decisions, and nothing else: its own (applies, rebalances),
 * its binding's scheduling decisions and fail-backs (not the frequent status reports), and the decisions of the
 * autoscalers aimed at it now: FederatedHPAs, EffectiveHPAs, and CronFederatedHPAs aimed at it or at one of those
 * FederatedHPAs, with each one's owner conflicts (its `ReplicaOwnerConflict` condition set and cleared). Reading these subjects only keeps `explain replicas` fast in a stream of many workloads.
 */
export function trailAddresses(workload: WorkloadRef, autoscalers: readonly AutoscalerLike[]): TrailAddress[] {
  const ns = workload.namespace;
  const at = (kind: string, name: string, ...types: string[]) =>
    types.map((type) => ({ kind, namespace: ns, name, type }));
  // Each autoscaler's ReplicaOwnerConflict condition changes with these (the gateway's and the hpa-assigner's).
  const conflicts = [REPLICA_OWNER_CONFLICT, REPLICA_OWNER_CONFLICT_RESOLVED];
  const binding = `${workload.name}-${workload.kind.toLowerCase()}`;
  const fhpas = autoscalers.filter((a) => a.kind === FHPA && targets(a, workload.kind, workload.name));
  const ehpas = autoscalers.filter((a) => a.kind === EHPA && targets(a, workload.kind, workload.name));
  const crons = autoscalers.filter(
    (a) =>
      a.kind === CRON &&
      (targets(a, workload.kind, workload.name) || fhpas.some((f) => targets(a, FHPA, f.metadata.name))),
  );
  return [
    ...at(workload.kind, workload.name, REPLICAS_APPLIED, 'WorkloadRescheduleTriggered'),
    ...at('ResourceBinding', binding, 'BindingScheduled', 'FailBackTriggered'),
    ...fhpas.flatMap((f) => at(FHPA, f.metadata.name, 'FederatedHPAAssigned', 'FederatedHPARescaled', ...conflicts)),
    ...ehpas.flatMap((e) => at(EHPA, e.metadata.name, 'EffectiveHPAScaled', ...conflicts)),
    ...crons.flatMap((c) => at(CRON, c.metadata.name, 'CronRuleExecuted', ...conflicts)),
  ];
}
