import { FederatedHpaAnnotations } from '@flotilla/api/core';
import {
  evictionRecheckMs,
  feasibleClusterNames,
  type Cluster,
  type KeptDecision,
  type ResourceBinding,
} from '@flotilla/scheduling';

/**
 * Who divides a binding's replicas. A FederatedHPA with an assignment (Karmada's FederatedHPA proposal: "Karmada
 * scheduler should not work for this workload anymore") owns its target's binding and its member HPA's binding:
 * - `Schedule`: not owned; the scheduler schedules it as usual;
 * - `LeaveAlone`: the member HPA's binding; the hpa-assigner places it wholly;
 * - `FilterOnly`: the target's binding; the scheduler still runs its filters (affinity, taints, API enablement,
 *   readiness for new clusters, NoExecute eviction for failover) and publishes the clusters that pass as the
 *   feasible-clusters annotation, and the hpa-assigner divides the replicas over them.
 */
export type HandOff =
  | { kind: 'Schedule' }
  | { kind: 'LeaveAlone'; owner: string }
  | {
      kind: 'FilterOnly';
      owner: string;
      feasible: string;
      changed: boolean;
      recheckAfterMs?: number;
      /**
       * The binding is not marked Scheduled: the FederatedHPA claimed it before the scheduler first got to it (two
       * scheduler replicas, or one busy, make that a race it can lose). Karmada's scheduler marks every binding it
       * filters, so the scheduler announces the hand-over as a kept assignment, which sets Scheduled=True.
       */
      announce?: true;
    };

export function federatedHpaHandOff(binding: ResourceBinding, clusters: readonly Cluster[], now: Date): HandOff {
  const owner = binding.metadata.annotations?.[FederatedHpaAnnotations.owner];
  if (owner === undefined) return { kind: 'Schedule' };
  if (binding.spec.resource.kind === 'HorizontalPodAutoscaler') return { kind: 'LeaveAlone', owner };
  const text = feasibleClusterNames(binding, clusters, now).join(',');
  const recheckAfterMs = evictionRecheckMs(binding, clusters, now);
  const scheduled = binding.status?.conditions?.some((c) => c.type === 'Scheduled' && c.status === 'True');
  return {
    kind: 'FilterOnly',
    owner,
    feasible: text,
    changed: binding.metadata.annotations?.[FederatedHpaAnnotations.feasibleClusters] !== text,
    ...(recheckAfterMs !== undefined ? { recheckAfterMs } : {}),
    ...(!scheduled && text !== '' ? { announce: true as const } : {}),
  };
}

/**
 * How a hand-over is announced (FilterOnly with `announce`): the clusters the binding has are kept, and its event's
 * status patch sets Scheduled=True. A binding whose last schedule failed is recovered, which Karmada reports.
 */
export function handOverDecision(binding: ResourceBinding): KeptDecision {
  const failed = binding.status?.conditions?.some((c) => c.type === 'Scheduled' && c.status === 'False') ?? false;
  return {
    kind: 'Kept',
    kept: binding.spec.clusters ?? [],
    recovered: failed,
    announce: true,
    basis: `${binding.status?.lastScheduledTime ?? ''}/${failed ? 'failed' : 'ok'}`,
  };
}
