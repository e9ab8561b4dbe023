import { describe, expect, it } from 'vitest';
import { fhpaView } from './fhpa.js';

describe('fhpaView', () => {
  it.each([
    {
      name: "Karmada's own mode: limits only, no shares",
      input: {
        metadata: { name: 'shop', namespace: 'default' },
        spec: { scaleTargetRef: { kind: 'Deployment', name: 'shop' }, minReplicas: 2, maxReplicas: 10 },
        status: { currentReplicas: 4 },
      },
      want: { target: 'Deployment/shop', minReplicas: 2, maxReplicas: 10, currentReplicas: 4, shares: [] },
    },
    {
      name: 'member HPAs: each cluster share of min and max, the last change with its moves',
      input: {
        metadata: { name: 'shop', namespace: 'default' },
        spec: {
          scaleTargetRef: { kind: 'Deployment', name: 'shop' },
          minReplicas: 4,
          maxReplicas: 20,
          federatedHPAAssignment: { federatedHPAAssignmentType: 'Weighted' },
        },
        status: {
          assignments: [
            { cluster: 'member2', minReplicas: 1, maxReplicas: 5, currentReplicas: 1 },
            { cluster: 'member1', minReplicas: 3, maxReplicas: 15, currentReplicas: 3, desiredReplicas: 4 },
          ],
          lastAssignment: {
            reason: 'ScaledAcross',
            message: 'member2 ran out of room',
            time: 't1',
            moves: [{ from: 'member2', to: 'member1', replicas: 2 }],
          },
        },
      },
      want: {
        assignmentType: 'Weighted',
        shares: [
          {
            cluster: 'member1',
            minReplicas: 3,
            maxReplicas: 15,
            currentReplicas: 3,
            desiredReplicas: 4,
            minShare: 0.75,
            maxShare: 0.75,
          },
          { cluster: 'member2', minReplicas: 1, maxReplicas: 5, currentReplicas: 1, minShare: 0.25, maxShare: 0.25 },
        ],
        last: {
          reason: 'ScaledAcross',
          message: 'member2 ran out of room',
          time: 't1',
          moves: ['2 max member2 -> member1'],
        },
      },
    },
  ])('$name', ({ input, want }) => expect(fhpaView(input)).toMatchObject(want));
});
