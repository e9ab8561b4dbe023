import { FederatedHpaAnnotations, formatMemberLimits, parseMemberLimits } from '@flotilla/api';
import type { RecordedAssignment } from './decide-federated-hpa.js';

/**
 * What the FederatedHPA's status keeps of its last assignment besides `status.assignments` (each cluster's min/max):
 * what the policy split was made from, when the max was last optimised and the pinned mins. The next pass reads its
 * previous assignment back from there (recordedAssignmentOfStatus).
 */
export interface AssignmentRecordStatus {
  basis: string;
  /** RFC 3339. */
  optimisedAt?: string;
  pinnedMins?: Record<string, number>;
}

/** The status field (`status.assignmentRecord`) of a record. */
export function assignmentRecordStatus(record: RecordedAssignment): AssignmentRecordStatus {
  return {
    basis: record.basis,
    ...(record.optimisedAtMs !== undefined ? { optimisedAt: new Date(record.optimisedAtMs).toISOString() } : {}),
    ...(record.pinned ? { pinnedMins: record.pinned } : {}),
  };
}

/**
 * The previous assignment as a FederatedHPA's status records it: `status.assignments` (cluster, minReplicas,
 * maxReplicas) and `status.assignmentRecord`. Nothing without both (the next pass assigns afresh); a part that
 * cannot be read (an optimisedAt that is no time, a pinned min that is no whole number) is left out.
 */
export function recordedAssignmentOfStatus(status: unknown): RecordedAssignment | undefined {
  const s = status as { assignments?: unknown; assignmentRecord?: Partial<AssignmentRecordStatus> } | undefined;
  const record = s?.assignmentRecord;
  if (!Array.isArray(s?.assignments) || typeof record?.basis !== 'string') return undefined;
  const assignments: RecordedAssignment['assignments'] = [];
  for (const row of s.assignments as Array<Record<string, unknown>>) {
    const { cluster, minReplicas, maxReplicas } = row ?? {};
    if (typeof cluster !== 'string' || !wholeNumber(minReplicas) || !wholeNumber(maxReplicas)) return undefined;
    assignments.push({ cluster, minReplicas, maxReplicas });
  }
  const optimisedAtMs = record.optimisedAt ? Date.parse(record.optimisedAt) : Number.NaN;
  return {
    assignments,
    basis: record.basis,
    ...(Number.isFinite(optimisedAtMs) ? { optimisedAtMs } : {}),
    ...(record.pinnedMins !== undefined ? { pinned: pinnedOf(record.pinnedMins) } : {}),
  };
}

const wholeNumber = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 0;

function pinnedOf(v: unknown): Record<string, number> {
  if (typeof v !== 'object' || v === null) return {};
  return Object.fromEntries(Object.entries(v).filter((e): e is [string, number] => wholeNumber(e[1])));
}

/**
 * The annotations of the member HPA's binding: the owner and each cluster's min/max (Karmada's per-cluster override,
 * which the member agents apply).
 */
export function memberHpaBindingAnnotations(
  owner: string,
  assignments: RecordedAssignment['assignments'],
): Record<string, string> {
  return {
    [FederatedHpaAnnotations.owner]: owner,
    [FederatedHpaAnnotations.memberLimits]: formatMemberLimits(assignments),
  };
}

/**
 * An assignment recorded on the member HPA binding's annotations by an hpa-assigner from before the record moved to
 * the FederatedHPA's status: read only while the status has none (the first pass after an upgrade), so that the
 * upgrade does not split anything afresh. Unreadable limits throw `MemberLimitsError`.
 */
export function legacyRecordedAssignment(
  annotations: Readonly<Record<string, string>> | undefined,
): RecordedAssignment | undefined {
  const limits = parseMemberLimits(annotations);
  const basis = annotations?.[FederatedHpaAnnotations.assignmentBasis];
  if (!limits || basis === undefined) return undefined;
  const optimisedAt = annotations?.[FederatedHpaAnnotations.optimisedAt];
  const pinned = annotations?.[FederatedHpaAnnotations.pinnedMins];
  const optimisedAtMs = optimisedAt ? Date.parse(optimisedAt) : Number.NaN;
  return {
    assignments: [...limits].map(([cluster, l]) => ({ cluster, ...l })),
    basis,
    ...(Number.isFinite(optimisedAtMs) ? { optimisedAtMs } : {}),
    ...(pinned ? { pinned: parsePinned(pinned) } : {}),
  };
}

/** The legacy pinned-mins annotation; an unreadable one holds nothing. */
function parsePinned(text: string): Record<string, number> {
  try {
    return pinnedOf(JSON.parse(text) as unknown);
  } catch {
    return {};
  }
}

/** Annotations without the legacy record (basis, optimised-at, pinned mins): the status holds it now. */
export function withoutLegacyRecord(annotations: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const {
    [FederatedHpaAnnotations.assignmentBasis]: _b,
    [FederatedHpaAnnotations.pinnedMins]: _p,
    [FederatedHpaAnnotations.optimisedAt]: _o,
    ...rest
  } = annotations ?? {};
  return rest;
}
