import { FederatedHpaAnnotations, MemberLimitsError } from '@flotilla/api';
import { describe, expect, it } from 'vitest';
import type { RecordedAssignment } from './decide-federated-hpa.js';
import { assignmentStatusPatch } from './fhpa-status.js';
import {
  legacyRecordedAssignment,
  memberHpaBindingAnnotations,
  recordedAssignmentOfStatus,
  withoutLegacyRecord,
} from './recorded-assignment.js';

const record: RecordedAssignment = {
  assignments: [
    { cluster: 'member1', minReplicas: 1, maxReplicas: 4 },
    { cluster: 'member2', minReplicas: 2, maxReplicas: 6 },
  ],
  basis: 'g3:member1,member2',
  optimisedAtMs: Date.parse('2024-04-17T15:04:05Z'),
  pinned: { member1: 1 },
};

/** The status a pass publishes for `r` (the status writer folds it as it is). */
const statusOf = (r: RecordedAssignment) =>
  assignmentStatusPatch({
    generation: 3,
    rows: r.assignments.map((a) => ({ ...a, currentReplicas: 0, desiredReplicas: 0 })),
    members: [],
    hpas: [],
    record: r,
    at: new Date('2024-04-17T15:04:05Z'),
  });

describe("the assignment recorded in the FederatedHPA's status", () => {
  it('reads back what was published', () => {
    expect(recordedAssignmentOfStatus(statusOf(record))).toEqual(record);
  });

  it('leaves out the optional parts a record does not have', () => {
    const plain: RecordedAssignment = { assignments: record.assignments, basis: record.basis };
    const status = statusOf(plain);
    expect(status.assignmentRecord).toEqual({ basis: plain.basis });
    expect(recordedAssignmentOfStatus(status)).toEqual(plain);
  });

  it.each([
    { name: 'no status', status: undefined },
    { name: 'no record', status: { assignments: [] } },
    { name: 'no assignments', status: { assignmentRecord: { basis: 'b' } } },
    {
      name: 'a row that is no assignment',
      status: { assignments: [{ cluster: 'm', minReplicas: -1, maxReplicas: 2 }], assignmentRecord: { basis: 'b' } },
    },
  ])('is nothing with $name (the next pass assigns afresh)', ({ status }) => {
    expect(recordedAssignmentOfStatus(status)).toBeUndefined();
  });

  it('an unreadable optimisedAt or pinned min is left out', () => {
    const status = {
      ...statusOf(record),
      assignmentRecord: { basis: record.basis, optimisedAt: 'yesterday', pinnedMins: { member1: -1, member2: 2 } },
    };
    expect(recordedAssignmentOfStatus(status)).toEqual({
      assignments: record.assignments,
      basis: record.basis,
      pinned: { member2: 2 },
    });
  });
});

describe("the member HPA's binding annotations", () => {
  it('carry the owner and each cluster’s limits only', () => {
    expect(memberHpaBindingAnnotations('shop', record.assignments)).toEqual({
      [FederatedHpaAnnotations.owner]: 'shop',
      [FederatedHpaAnnotations.memberLimits]:
        '{"member1":{"minReplicas":1,"maxReplicas":4},"member2":{"minReplicas":2,"maxReplicas":6}}',
    });
  });

  it('a record an earlier version left there is read while the status has none, and dropped on the next write', () => {
    const legacy = {
      ...memberHpaBindingAnnotations('shop', record.assignments),
      [FederatedHpaAnnotations.assignmentBasis]: record.basis,
      [FederatedHpaAnnotations.optimisedAt]: '2024-04-17T15:04:05Z',
      [FederatedHpaAnnotations.pinnedMins]: '{"member1":1}',
    };
    expect(legacyRecordedAssignment(legacy)).toEqual(record);
    expect(legacyRecordedAssignment(memberHpaBindingAnnotations('shop', record.assignments))).toBeUndefined();
    expect(Object.keys(withoutLegacyRecord(legacy)).sort()).toEqual(
      [FederatedHpaAnnotations.owner, FederatedHpaAnnotations.memberLimits].sort(),
    );
    const bad = { ...legacy, [FederatedHpaAnnotations.memberLimits]: '{"member1": {"minReplicas": -1}}' };
    expect(() => legacyRecordedAssignment(bad)).toThrow(MemberLimitsError);
  });
});
