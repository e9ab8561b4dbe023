import { FederatedHpaAnnotations, MemberLimitsError } from '@flotilla/api';
import { describe, expect, it } from 'vitest';
import type { RecordedAssignment } from './decide-federated-hpa.js';
import { recordedAssignment, recordedAssignmentAnnotations, withoutOptionalRecord } from './recorded-assignment.js';

const record: RecordedAssignment = {
  assignments: [
    { cluster: 'member1', minReplicas: 1, maxReplicas: 4 },
    { cluster: 'member2', minReplicas: 2, maxReplicas: 6 },
  ],
  basis: 'g3:member1,member2',
  optimisedAtMs: Date.parse('2024-04-17T15:04:05Z'),
  pinned: { member1: 1 },
};

describe('the assignment recorded on the member HPA’s binding', () => {
  it('reads back what was written', () => {
    const annotations = recordedAssignmentAnnotations('shop', record);
    expect(annotations[FederatedHpaAnnotations.owner]).toBe('shop');
    expect(recordedAssignment(annotations)).toEqual(record);
  });

  it('leaves out the optional parts a record does not have', () => {
    const plain: RecordedAssignment = { assignments: record.assignments, basis: record.basis };
    const annotations = recordedAssignmentAnnotations('shop', plain);
    expect(Object.keys(annotations)).not.toContain(FederatedHpaAnnotations.pinnedMins);
    expect(Object.keys(annotations)).not.toContain(FederatedHpaAnnotations.optimisedAt);
    expect(recordedAssignment(annotations)).toEqual(plain);
  });

  it('is nothing without limits or basis (the next pass assigns afresh)', () => {
    const annotations = recordedAssignmentAnnotations('shop', record);
    const { [FederatedHpaAnnotations.assignmentBasis]: _b, ...noBasis } = annotations;
    const { [FederatedHpaAnnotations.memberLimits]: _l, ...noLimits } = annotations;
    expect(recordedAssignment(undefined)).toBeUndefined();
    expect(recordedAssignment(noBasis)).toBeUndefined();
    expect(recordedAssignment(noLimits)).toBeUndefined();
  });

  it('an unreadable pinned-mins or optimised-at holds nothing; unreadable limits are an error with the field', () => {
    const annotations = {
      ...recordedAssignmentAnnotations('shop', record),
      [FederatedHpaAnnotations.pinnedMins]: '{"member1": -1, "member2": 2',
      [FederatedHpaAnnotations.optimisedAt]: 'yesterday',
    };
    expect(recordedAssignment(annotations)).toEqual({
      assignments: record.assignments,
      basis: record.basis,
      pinned: {},
    });
    const bad = { ...annotations, [FederatedHpaAnnotations.memberLimits]: '{"member1": {"minReplicas": -1}}' };
    expect(() => recordedAssignment(bad)).toThrow(MemberLimitsError);
  });

  it('a new record drops the optional annotations of the last one', () => {
    const rest = withoutOptionalRecord(recordedAssignmentAnnotations('shop', record));
    expect(Object.keys(rest).sort()).toEqual(
      [
        FederatedHpaAnnotations.owner,
        FederatedHpaAnnotations.memberLimits,
        FederatedHpaAnnotations.assignmentBasis,
      ].sort(),
    );
  });
});
