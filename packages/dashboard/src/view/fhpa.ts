/** One member cluster's share of a FederatedHPA's limits. */
export interface FhpaShare {
  cluster: string;
  minReplicas: number;
  maxReplicas: number;
  currentReplicas?: number;
  desiredReplicas?: number;
  /** This cluster's part of the summed min and max, 0..1. */
  minShare: number;
  maxShare: number;
}

export interface FhpaView {
  name: string;
  namespace: string;
  target: string;
  minReplicas?: number;
  maxReplicas?: number;
  currentReplicas?: number;
  /** `Duplicated` / `Weighted` … for member HPAs; undefined in Karmada's own mode (one count, divided by the scheduler). */
  assignmentType?: string;
  shares: FhpaShare[];
  last?: { reason: string; message: string; time: string; moves: string[] };
}

type Json = Record<string, unknown>;
const rec = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const num = (v: unknown) => (typeof v === 'number' ? v : undefined);

/** A FederatedHPA's page section: its limits, each cluster's share of them (status.assignments) and the last change. */
export function fhpaView(o: unknown): FhpaView {
  const obj = rec(o);
  const meta = rec(obj.metadata);
  const spec = rec(obj.spec);
  const status = rec(obj.status);
  const target = rec(spec.scaleTargetRef);
  const rows = Array.isArray(status.assignments) ? (status.assignments as Json[]) : [];
  const sumMin = rows.reduce((a, r) => a + (num(r.minReplicas) ?? 0), 0);
  const sumMax = rows.reduce((a, r) => a + (num(r.maxReplicas) ?? 0), 0);
  const last = status.lastAssignment === undefined ? undefined : rec(status.lastAssignment);
  const assignment = spec.federatedHPAAssignment === undefined ? undefined : rec(spec.federatedHPAAssignment);
  return {
    name: String(meta.name ?? ''),
    namespace: String(meta.namespace ?? ''),
    target: `${String(target.kind ?? '')}/${String(target.name ?? '')}`,
    minReplicas: num(spec.minReplicas),
    maxReplicas: num(spec.maxReplicas),
    currentReplicas: num(status.currentReplicas),
    ...(assignment ? { assignmentType: String(assignment.federatedHPAAssignmentType ?? 'Duplicated') } : {}),
    shares: rows
      .map((r) => {
        const min = num(r.minReplicas) ?? 0;
        const max = num(r.maxReplicas) ?? 0;
        return {
          cluster: String(r.cluster ?? ''),
          minReplicas: min,
          maxReplicas: max,
          ...(num(r.currentReplicas) === undefined ? {} : { currentReplicas: num(r.currentReplicas) }),
          ...(num(r.desiredReplicas) === undefined ? {} : { desiredReplicas: num(r.desiredReplicas) }),
          minShare: sumMin > 0 ? min / sumMin : 0,
          maxShare: sumMax > 0 ? max / sumMax : 0,
        };
      })
      .sort((a, b) => a.cluster.localeCompare(b.cluster)),
    ...(last
      ? {
          last: {
            reason: String(last.reason ?? '<unknown>'),
            message: String(last.message ?? ''),
            time: String(last.time ?? ''),
            moves: (Array.isArray(last.moves) ? (last.moves as Json[]) : []).map(
              (m) => `${String(m.replicas)} max ${String(m.from)} -> ${String(m.to)}`,
            ),
          },
        }
      : {}),
  };
}
