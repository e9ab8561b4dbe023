import { describe, expect, it } from 'vitest';
import { assignmentConditions, assignmentRows, assignmentStatusPatch } from './fhpa-status.js';

const assignments = [
  { cluster: 'member1', minReplicas: 1, maxReplicas: 2 },
  { cluster: 'member2', minReplicas: 1, maxReplicas: 4 },
];
const member = (cluster: string, specReplicas: number, pendingReplicas = 0) => ({
  cluster,
  specReplicas,
  readyReplicas: specReplicas - pendingReplicas,
  pendingReplicas,
});

describe('FederatedHPA status with member HPAs', () => {
  it('a row per member HPA: limits, the workload’s replicas and the member HPA’s desired count', () => {
    const rows = assignmentRows(assignments, [member('member1', 2)], [{ cluster: 'member1', desiredReplicas: 3 }]);
    expect(rows).toEqual([
      { cluster: 'member1', minReplicas: 1, maxReplicas: 2, currentReplicas: 2, desiredReplicas: 3 },
      { cluster: 'member2', minReplicas: 1, maxReplicas: 4, currentReplicas: 0, desiredReplicas: 0 },
    ]);
  });

  it('conditions as Kubernetes names them: ScalingLimited when every member HPA is at its max, with the pending pods', () => {
    const members = [member('member1', 2, 1), member('member2', 4)];
    const conditions = assignmentConditions(assignmentRows(assignments, members, []), members);
    expect(conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['AbleToScale', 'True', 'SucceededAssign'],
      ['ScalingActive', 'True', 'MemberHPAsActive'],
      ['ScalingLimited', 'True', 'TooManyReplicas'],
    ]);
    expect(conditions[2]!.message).toContain('1 pod(s) are pending');
    const none = assignmentConditions([], []);
    expect(none.map((c) => c.status)).toEqual(['False', 'False', 'False']);
  });

  it('the patch sums the replicas and records the last change with its moves', () => {
    const members = [member('member1', 2), member('member2', 1)];
    const patch = assignmentStatusPatch({
      generation: 3,
      rows: assignmentRows(assignments, members, []),
      members,
      hpas: [],
      decision: {
        reason: 'ScaledUpAcross',
        message: 'moved',
        moves: [{ from: 'member1', to: 'member2', replicas: 2 }],
      },
      at: new Date('2026-01-01T00:00:00.123Z'),
    });
    expect(patch).toMatchObject({
      observedGeneration: 3,
      currentReplicas: 3,
      desiredReplicas: 3,
      lastAssignment: {
        reason: 'ScaledUpAcross',
        time: '2026-01-01T00:00:00Z',
        moves: [{ from: 'member1', to: 'member2', replicas: 2 }],
      },
    });
  });
});
