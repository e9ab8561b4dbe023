/**
 * The contract between the hpa-assigner, the affinity scheduler and the member agents for a FederatedHPA with an
 * assignment (Karmada's FederatedHPA proposal): which objects a FederatedHPA owns and what each member HPA may do.
 */
export const FederatedHpaAnnotations = {
  /** On the member HPA template, its binding and the target's binding: the FederatedHPA (its name) that owns them. */
  owner: 'autoscaling.flotilla.io/federated-hpa',
  /** On the member HPA's binding: `{cluster: {minReplicas, maxReplicas}}`, Karmada's per-cluster override. */
  memberLimits: 'autoscaling.flotilla.io/member-limits',
  /**
   * Legacy (read once after an upgrade, dropped on the next write; the FederatedHPA's `status.assignmentRecord` holds
   * these now): what the last policy split was made from (FederatedHPA generation, clusters).
   */
  assignmentBasis: 'autoscaling.flotilla.io/assignment-basis',
  /** Legacy, as assignmentBasis: `{cluster: assignedMin}` of the clusters held at their replicas (scale-down order). */
  pinnedMins: 'autoscaling.flotilla.io/pinned-mins',
  /** Legacy, as assignmentBasis: when the max was last optimised (RFC 3339). */
  optimisedAt: 'autoscaling.flotilla.io/optimised-at',
  /** On the target's binding, written by the affinity scheduler: the clusters its filters keep, comma-separated. */
  feasibleClusters: 'autoscaling.flotilla.io/feasible-clusters',
} as const;

export interface MemberLimits {
  minReplicas: number;
  maxReplicas: number;
}

/** A member-limits annotation that is not `{cluster: {minReplicas, maxReplicas}}` with integers. */
export class MemberLimitsError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`metadata.annotations["${FederatedHpaAnnotations.memberLimits}"]${field}: ${message}`);
    this.name = 'MemberLimitsError';
  }
}

/** Reads the member-limits annotation; undefined when the annotation is absent. */
export function parseMemberLimits(
  annotations: Record<string, string> | undefined,
): Map<string, MemberLimits> | undefined {
  const raw = annotations?.[FederatedHpaAnnotations.memberLimits];
  if (raw === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new MemberLimitsError('', 'expected JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new MemberLimitsError('', 'expected an object');
  const out = new Map<string, MemberLimits>();
  for (const [cluster, v] of Object.entries(parsed)) {
    const { minReplicas, maxReplicas } = (v ?? {}) as Record<string, unknown>;
    for (const [f, n] of [
      ['minReplicas', minReplicas],
      ['maxReplicas', maxReplicas],
    ] as const) {
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) {
        throw new MemberLimitsError(`.${cluster}.${f}`, `expected an integer >= 0, got ${JSON.stringify(n)}`);
      }
    }
    out.set(cluster, { minReplicas: minReplicas as number, maxReplicas: maxReplicas as number });
  }
  return out;
}

/** The annotation value for `limits`, clusters in name order so equal limits give equal text. */
export function formatMemberLimits(limits: ReadonlyArray<{ cluster: string } & MemberLimits>): string {
  const sorted = [...limits].sort((a, b) => (a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : 0));
  return JSON.stringify(
    Object.fromEntries(sorted.map((l) => [l.cluster, { minReplicas: l.minReplicas, maxReplicas: l.maxReplicas }])),
  );
}

/**
 * Karmada's record, on a binding, of the placement its spec.clusters were scheduled under (JSON). The scheduler writes
 * and reads it; nothing else needs it (the member agents drop it from their caches).
 */
export const APPLIED_PLACEMENT_ANNOTATION = 'policy.karmada.io/applied-placement';
