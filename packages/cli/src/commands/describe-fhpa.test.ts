import { describe, expect, it } from 'vitest';
import { federatedHpaLines, replicaDivisionLines } from './describe-fhpa.js';

describe('describe fhpa: the assignment table and why it changed last', () => {
  it('shows each cluster’s limits and replicas, and the last move', () => {
    const lines = federatedHpaLines(
      { federatedHPAAssignment: { federatedHPAAssignmentType: 'Prioritized' } },
      {
        assignments: [
          { cluster: 'member1', minReplicas: 2, maxReplicas: 4, currentReplicas: 4, desiredReplicas: 4 },
          { cluster: 'member2', minReplicas: 1, maxReplicas: 6, currentReplicas: 1, desiredReplicas: 3 },
        ],
        lastAssignment: {
          reason: 'ScaledUpAcross',
          message: 'pods pending past the delay: 6 max from member1 to member2',
          time: '2026-01-01T00:00:30Z',
          moves: [{ from: 'member1', to: 'member2', replicas: 6 }],
        },
      },
    ).join('\n');
    expect(lines).toContain('member HPAs, Prioritized assignment');
    expect(lines).toMatch(/Cluster\s+Min\s+Max\s+Current\s+Desired/);
    expect(lines).toMatch(/member2\s+1\s+6\s+1\s+3/);
    expect(lines).toContain('Reason:   ScaledUpAcross');
    expect(lines).toContain('Moves:    6 max member1 -> member2');
  });

  it("names Karmada's shipped mode, and an assignment not made yet", () => {
    expect(federatedHpaLines({}, {}).join('\n')).toContain(
      "Karmada's FederatedHPA: one replica count for the template",
    );
    expect(federatedHpaLines({ federatedHPAAssignment: {} }, undefined)).toContain('Assignment:   <none yet>');
  });

  it('says who divides a binding’s replicas', () => {
    expect(replicaDivisionLines({}, {})).toEqual(['Replica division:  affinity scheduler']);
    const owned = {
      'autoscaling.flotilla.io/federated-hpa': 'shop',
      'autoscaling.flotilla.io/feasible-clusters': 'member1,member2',
    };
    expect(replicaDivisionLines({ resource: { kind: 'Deployment' } }, owned)).toEqual([
      'Replica division:  FederatedHPA shop (hpa-assigner); the affinity scheduler only filters clusters',
      'Feasible clusters: member1,member2',
    ]);
    expect(replicaDivisionLines({ resource: { kind: 'HorizontalPodAutoscaler' } }, owned)[0]).toContain(
      'member HPA of FederatedHPA shop',
    );
  });
});
