import { FederatedHpaAnnotations } from '@flotilla/api';
import { formatTable } from '@flotilla/presentation';

interface AssignmentRow {
  cluster: string;
  minReplicas: number;
  maxReplicas: number;
  currentReplicas?: number;
  desiredReplicas?: number;
}
interface LastAssignment {
  reason?: string;
  message?: string;
  time?: string;
  moves?: Array<{ from: string; to: string; replicas: number }>;
}

/**
 * The "Assignment:" section of a FederatedHPA: which mode it runs in, each cluster's member HPA limits and
 * replicas (from status, as the hpa-assigner folds it), and why the assignment changed last.
 */
export function federatedHpaLines(
  spec: Record<string, unknown> | undefined,
  status: Record<string, unknown> | undefined,
): string[] {
  const assignment = spec?.federatedHPAAssignment as { federatedHPAAssignmentType?: string } | undefined;
  if (!assignment) {
    return ["Mode:         Karmada's FederatedHPA: one replica count for the template, divided by the scheduler"];
  }
  const lines = [
    `Mode:         member HPAs, ${assignment.federatedHPAAssignmentType ?? 'Duplicated'} assignment (the scheduler no longer divides the target's replicas)`,
  ];
  const rows = (status?.assignments as AssignmentRow[] | undefined) ?? [];
  if (!rows.length) lines.push('Assignment:   <none yet>');
  else {
    const table = formatTable(
      ['Cluster', 'Min', 'Max', 'Current', 'Desired'],
      rows.map((r) => [
        r.cluster,
        String(r.minReplicas),
        String(r.maxReplicas),
        String(r.currentReplicas ?? '-'),
        String(r.desiredReplicas ?? '-'),
      ]),
    );
    lines.push('Assignment:', ...table.split('\n').map((l) => `  ${l}`));
  }
  const last = status?.lastAssignment as LastAssignment | undefined;
  if (last) {
    lines.push(
      'Last change:',
      `  Reason:   ${last.reason ?? '<unknown>'}`,
      `  Message:  ${last.message ?? ''}`,
      `  Time:     ${last.time ?? ''}`,
    );
    if (last.moves?.length)
      lines.push(`  Moves:    ${last.moves.map((m) => `${m.replicas} max ${m.from} -> ${m.to}`).join(', ')}`);
  }
  return lines;
}

/** For a binding: who divides its replicas (the hand-off between the affinity scheduler and the hpa-assigner). */
export function replicaDivisionLines(
  spec: Record<string, unknown> | undefined,
  annotations: Record<string, string> | undefined,
): string[] {
  const owner = annotations?.[FederatedHpaAnnotations.owner];
  if (owner === undefined) return ['Replica division:  affinity scheduler'];
  const resource = spec?.resource as { kind?: string } | undefined;
  if (resource?.kind === 'HorizontalPodAutoscaler')
    return [`Replica division:  member HPA of FederatedHPA ${owner}, placed by the hpa-assigner`];
  const feasible = annotations?.[FederatedHpaAnnotations.feasibleClusters];
  return [
    `Replica division:  FederatedHPA ${owner} (hpa-assigner); the affinity scheduler only filters clusters`,
    `Feasible clusters: ${feasible === undefined ? '<not filtered yet>' : feasible || '<none>'}`,
  ];
}
