import { FederatedHpaAnnotations, formatMemberLimits, parseMemberLimits } from '@flotilla/api';
import type { RecordedAssignment } from './decide-federated-hpa.js';

/**
 * The annotations that record an assignment on the member HPA's binding: the owner, each cluster's min/max, what the
 * split was made from, when the max was last optimised and the pinned mins. `recordedAssignment` reads them back.
 */
export function recordedAssignmentAnnotations(owner: string, record: RecordedAssignment): Record<string, string> {
  return {
    [FederatedHpaAnnotations.owner]: owner,
    [FederatedHpaAnnotations.memberLimits]: formatMemberLimits(record.assignments),
    [FederatedHpaAnnotations.assignmentBasis]: record.basis,
    ...(record.optimisedAtMs !== undefined
      ? { [FederatedHpaAnnotations.optimisedAt]: new Date(record.optimisedAtMs).toISOString() }
      : {}),
    ...(record.pinned ? { [FederatedHpaAnnotations.pinnedMins]: JSON.stringify(record.pinned) } : {}),
  };
}

/**
 * What the hpa-assigner recorded with the last assignment, read from the member HPA binding's annotations; nothing
 * without limits or basis (the next pass assigns afresh). Unreadable limits throw `MemberLimitsError`.
 */
export function recordedAssignment(
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

/** The pinned-mins annotation; an unreadable one holds nothing (the next pass writes it afresh). */
function parsePinned(text: string): Record<string, number> {
  try {
    const v = JSON.parse(text) as unknown;
    if (typeof v !== 'object' || v === null) return {};
    return Object.fromEntries(
      Object.entries(v).filter((e): e is [string, number] => Number.isInteger(e[1]) && e[1] >= 0),
    );
  } catch {
    return {};
  }
}

/** The annotations of the last record that a new record may leave out (so a released hold does not linger). */
export function withoutOptionalRecord(
  annotations: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const {
    [FederatedHpaAnnotations.pinnedMins]: _p,
    [FederatedHpaAnnotations.optimisedAt]: _o,
    ...rest
  } = annotations ?? {};
  return rest;
}
