import { formatTime } from '@flotilla/api';
import type { HpaCondition, MemberHpaStatus } from '@flotilla/hpa-math';
import type { FederatedHpaDecision, MemberStatus, RecordedAssignment } from './decide-federated-hpa.js';
import { assignmentRecordStatus } from './recorded-assignment.js';
import type { MemberAssignment } from './types.js';

/** One row of `status.assignments`: a cluster's member HPA and its workload. */
export interface AssignmentRow {
  cluster: string;
  minReplicas: number;
  maxReplicas: number;
  currentReplicas: number;
  desiredReplicas: number;
}

export function assignmentRows(
  assignments: readonly MemberAssignment[],
  members: readonly MemberStatus[],
  hpas: readonly MemberHpaStatus[],
): AssignmentRow[] {
  const byCluster = new Map(members.map((m) => [m.cluster, m]));
  const hpaOf = new Map(hpas.map((h) => [h.cluster, h]));
  return assignments.map((a) => {
    const current = byCluster.get(a.cluster)?.specReplicas ?? 0;
    return {
      cluster: a.cluster,
      minReplicas: a.minReplicas,
      maxReplicas: a.maxReplicas,
      currentReplicas: current,
      desiredReplicas: hpaOf.get(a.cluster)?.desiredReplicas ?? current,
    };
  });
}

/**
 * Conditions of a FederatedHPA with an assignment, named as Kubernetes names the HPA's: AbleToScale (the member
 * HPAs were assigned), ScalingActive (some member HPA acts), ScalingLimited (every member HPA is at its max while
 * pods are still pending, so only a move across clusters can help).
 */
export function assignmentConditions(rows: readonly AssignmentRow[], members: readonly MemberStatus[]): HpaCondition[] {
  const pending = members.reduce((n, m) => n + m.pendingReplicas, 0);
  const atMax = rows.length > 0 && rows.every((r) => r.currentReplicas >= r.maxReplicas);
  return [
    rows.length
      ? {
          type: 'AbleToScale',
          status: 'True',
          reason: 'SucceededAssign',
          message: `${rows.length} member HPA(s) assigned`,
        }
      : { type: 'AbleToScale', status: 'False', reason: 'NoCandidateCluster', message: 'no Ready candidate cluster' },
    rows.some((r) => r.maxReplicas > 0)
      ? {
          type: 'ScalingActive',
          status: 'True',
          reason: 'MemberHPAsActive',
          message: 'member HPAs scale within their limits',
        }
      : { type: 'ScalingActive', status: 'False', reason: 'NoMemberHPA', message: 'no member HPA has room' },
    atMax
      ? {
          type: 'ScalingLimited',
          status: 'True',
          reason: 'TooManyReplicas',
          message: `every member HPA is at its max${pending ? ` and ${pending} pod(s) are pending` : ''}`,
        }
      : {
          type: 'ScalingLimited',
          status: 'False',
          reason: 'DesiredWithinRange',
          message: 'the desired count is within the acceptable range',
        },
  ];
}

/** The status patch of an assignment pass (folded into the FederatedHPA's status by the status writer). */
export function assignmentStatusPatch(input: {
  generation: number;
  rows: readonly AssignmentRow[];
  members: readonly MemberStatus[];
  hpas: readonly MemberHpaStatus[];
  decision?: Pick<FederatedHpaDecision, 'reason' | 'message' | 'moves'>;
  /** The assignment as the next pass reads it back (`status.assignmentRecord`, beside `status.assignments`). */
  record?: RecordedAssignment;
  at: Date;
}): Record<string, unknown> {
  const { rows } = input;
  return {
    observedGeneration: input.generation,
    currentReplicas: rows.reduce((n, r) => n + r.currentReplicas, 0),
    desiredReplicas: rows.reduce((n, r) => n + r.desiredReplicas, 0),
    assignments: rows,
    ...(input.record ? { assignmentRecord: assignmentRecordStatus(input.record) } : {}),
    aggregatedStatus: input.hpas,
    conditions: assignmentConditions(rows, input.members),
    ...(input.decision
      ? {
          lastAssignment: {
            reason: input.decision.reason,
            message: input.decision.message,
            time: formatTime(input.at),
            ...(input.decision.moves.length ? { moves: input.decision.moves } : {}),
          },
        }
      : {}),
  };
}
