import type { FederatedHPASpec } from '@flotilla/api';
import { describe, expect, it } from 'vitest';
import {
  assignmentBasis,
  decideFederatedHpa,
  type FederatedHpaState,
  type MemberStatus,
} from './decide-federated-hpa.js';
import { memberWithRoom } from './testdata/fleet.js';

const names = (...clusterNames: string[]) => ({ clusterNames });
const target = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop' };

const staticWeighted: FederatedHPASpec = {
  scaleTargetRef: target,
  minReplicas: 3,
  maxReplicas: 12,
  federatedHPAAssignment: {
    federatedHPAAssignmentType: 'StaticWeighted',
    clusterAutoscalingPreference: [
      { targetCluster: names('member1'), staticWeight: 1 },
      { targetCluster: names('member2'), staticWeight: 2 },
      { targetCluster: names('member3'), staticWeight: 3 },
    ],
  },
};

const prioritized: FederatedHPASpec = {
  scaleTargetRef: target,
  minReplicas: 2,
  maxReplicas: 10,
  autoscaleMultiClusterDelay: 30,
  federatedHPAAssignment: {
    federatedHPAAssignmentType: 'Prioritized',
    clusterAutoscalingPreference: [
      { targetCluster: names('member1'), priority: 3 },
      { targetCluster: names('member2'), priority: 2 },
      { targetCluster: names('member3'), priority: 1 },
    ],
  },
};

const member = (
  cluster: string,
  specReplicas: number,
  readyReplicas = specReplicas,
  pendingReplicas = 0,
): MemberStatus => ({
  cluster,
  specReplicas,
  readyReplicas,
  pendingReplicas,
});

function state(spec: FederatedHPASpec, extra: Partial<FederatedHpaState> = {}): FederatedHpaState {
  return {
    spec,
    generation: 1,
    clusters: [memberWithRoom('member1', 100), memberWithRoom('member2', 100), memberWithRoom('member3', 100)],
    candidates: ['member1', 'member2', 'member3'],
    members: [],
    starved: new Set(),
    optimisePeriodMs: 300_000,
    ...extra,
  };
}

/** Runs the first assignment and returns the state of the next pass, as the service would record it. */
function afterInitial(s: FederatedHpaState, members: MemberStatus[]): FederatedHpaState {
  const first = decideFederatedHpa(s, 0);
  return { ...s, members, previous: { assignments: first.assignments, basis: first.basis, optimisedAtMs: 0 } };
}

/** The Prioritized state after 6 max moved from member1 to member2 (as recorded on the member HPA binding). */
function afterMove() {
  const s = afterInitial(state(prioritized), []);
  const previous = {
    ...s.previous!,
    assignments: [
      { cluster: 'member1', minReplicas: 2, maxReplicas: 4 },
      { cluster: 'member2', minReplicas: 1, maxReplicas: 6 },
    ],
  };
  return { s, previous };
}

describe("Karmada's FederatedHPA proposal: the assignment controller's pass", () => {
  it('StaticWeighted 1:2:3 splits min 3 / max 12 on the first pass', () => {
    const d = decideFederatedHpa(state(staticWeighted), 0);
    expect(d).toMatchObject({ reason: 'Initial', changed: true });
    expect(d.assignments).toEqual([
      { cluster: 'member1', minReplicas: 1, maxReplicas: 2 },
      { cluster: 'member2', minReplicas: 1, maxReplicas: 4 },
      { cluster: 'member3', minReplicas: 1, maxReplicas: 6 },
    ]);
    expect(d.bindingClusters).toEqual([
      { name: 'member1', replicas: 1 },
      { name: 'member2', replicas: 1 },
      { name: 'member3', replicas: 1 },
    ]);
  });

  it('a second pass over the same inputs writes nothing', () => {
    const s = afterInitial(state(staticWeighted), [member('member1', 1), member('member2', 1), member('member3', 1)]);
    expect(decideFederatedHpa(s, 1000)).toMatchObject({ reason: 'Unchanged', changed: false });
  });

  it('a FederatedHPA change (a CronFederatedHPA raising min) re-splits', () => {
    const s = afterInitial(state(staticWeighted), [member('member1', 1), member('member2', 1), member('member3', 1)]);
    const d = decideFederatedHpa({ ...s, generation: 2, spec: { ...staticWeighted, minReplicas: 6 } }, 1000);
    expect(d).toMatchObject({ reason: 'Reassigned', changed: true });
    expect(d.assignments.map((a) => a.minReplicas)).toEqual([1, 2, 3]);
    expect(d.bindingClusters.map((b) => b.replicas)).toEqual([1, 2, 3]);
  });

  it('failover: a NotReady cluster’s share goes to the others by the same policy', () => {
    const s = afterInitial(state(staticWeighted), [member('member1', 1), member('member2', 3), member('member3', 5)]);
    const clusters = [
      memberWithRoom('member1', 100),
      memberWithRoom('member2', 100),
      memberWithRoom('member3', 100, { ready: false }),
    ];
    const d = decideFederatedHpa({ ...s, clusters }, 1000);
    expect(d).toMatchObject({ reason: 'Failover', changed: true, failedOver: ['member3'] });
    expect(d.assignments).toEqual([
      { cluster: 'member1', minReplicas: 1, maxReplicas: 4 },
      { cluster: 'member2', minReplicas: 2, maxReplicas: 8 },
    ]);
    expect(d.message).toContain('member3');
  });

  it('a candidate leaving after its failover (the scheduler evicting it) re-records the basis but changes nothing', () => {
    const s = afterInitial(state(staticWeighted), [member('member1', 1), member('member2', 3), member('member3', 5)]);
    const clusters = [
      memberWithRoom('member1', 100),
      memberWithRoom('member2', 100),
      memberWithRoom('member3', 100, { ready: false }),
    ];
    const failover = decideFederatedHpa({ ...s, clusters }, 1000);
    const after = {
      ...s,
      clusters,
      candidates: ['member1', 'member2'],
      bindingClusters: failover.bindingClusters,
      previous: { assignments: failover.assignments, basis: failover.basis },
    };
    const evicted = decideFederatedHpa(after, 2000);
    expect(evicted).toMatchObject({ reason: 'Unchanged', changed: true, assignments: failover.assignments });
    expect(evicted.basis).not.toBe(failover.basis);
  });

  it('Prioritized: a starved cluster keeps max(ready, min) and the next preferred cluster gets the rest', () => {
    const s = afterInitial(state(prioritized), [member('member1', 10, 4, 6)]);
    expect(s.previous!.assignments).toEqual([{ cluster: 'member1', minReplicas: 2, maxReplicas: 10 }]);
    const d = decideFederatedHpa({ ...s, starved: new Set(['member1']) }, 31_000);
    expect(d).toMatchObject({ reason: 'ScaledUpAcross', changed: true });
    expect(d.moves).toEqual([{ from: 'member1', to: 'member2', replicas: 6 }]);
    expect(d.assignments).toEqual([
      { cluster: 'member1', minReplicas: 2, maxReplicas: 4 },
      { cluster: 'member2', minReplicas: 1, maxReplicas: 6 },
    ]);
    // the receiving cluster is scaled from 0 to 1 so its member HPA can act; the starved one is clamped to its max
    expect(d.bindingClusters).toEqual([
      { name: 'member1', replicas: 4 },
      { name: 'member2', replicas: 1 },
    ]);
    const total = d.assignments.reduce((n, a) => n + a.maxReplicas, 0);
    expect(total).toBe(10);
  });

  it('Prioritized: without a starved cluster and before the optimise period nothing moves', () => {
    const s = afterInitial(state(prioritized), [member('member1', 10, 4, 6)]);
    expect(decideFederatedHpa(s, 31_000)).toMatchObject({ reason: 'Unchanged', changed: false });
  });

  it('Prioritized: the least preferred cluster at its min hands its max back to the most preferred', () => {
    const { s, previous } = afterMove();
    const settled = { ...s, previous, members: [member('member1', 3), member('member2', 1)] };
    // a period after the last move, not before: the receiving cluster may not have scaled yet
    expect(decideFederatedHpa(settled, 1000).changed).toBe(false);
    const d = decideFederatedHpa(settled, 300_000);
    expect(d).toMatchObject({ reason: 'ScaledDownByPriority', changed: true });
    expect(d.assignments).toEqual([
      { cluster: 'member1', minReplicas: 2, maxReplicas: 9 },
      { cluster: 'member2', minReplicas: 1, maxReplicas: 1 },
    ]);
  });

  it('Prioritized: while a less preferred cluster is above its min, the more preferred ones are held at their replicas', () => {
    const { s, previous } = afterMove();
    const busy = decideFederatedHpa({ ...s, previous, members: [member('member1', 4), member('member2', 5)] }, 1000);
    expect(busy).toMatchObject({ reason: 'ScaledDownByPriority', changed: true, pinned: { member1: 2 } });
    expect(busy.assignments).toEqual([
      { cluster: 'member1', minReplicas: 4, maxReplicas: 4 },
      { cluster: 'member2', minReplicas: 1, maxReplicas: 6 },
    ]);
    expect(busy.message).toBe('holding member1 at 4 while member2 scales down');
    // member2 has reached its min: member1 is released back to its assigned min (the hand-back waits a period)
    const recorded = { ...previous, assignments: busy.assignments, pinned: busy.pinned! };
    const down = decideFederatedHpa(
      { ...s, previous: recorded, members: [member('member1', 4), member('member2', 1)] },
      2000,
    );
    expect(down).toMatchObject({ reason: 'ScaledDownByPriority', changed: true });
    expect(down.pinned).toBeUndefined();
    expect(down.assignments).toEqual(previous.assignments);
    // and a pass over the same holds writes nothing
    const again = decideFederatedHpa(
      { ...s, previous: recorded, members: [member('member1', 4), member('member2', 5)] },
      3000,
    );
    expect(again).toMatchObject({ reason: 'Unchanged', changed: false, pinned: { member1: 2 } });
  });

  it('Prioritized: no scale-down hand-back right after a move, while the receiving cluster is still at 0', () => {
    const { s, previous } = afterMove();
    const d = decideFederatedHpa({ ...s, previous, members: [member('member1', 10, 4, 6)] }, 1000);
    expect(d).toMatchObject({ reason: 'Unchanged', changed: false });
  });

  it('the max optimisation waits while pods pend, so it does not undo a move across clusters', () => {
    const s = afterInitial(state(staticWeighted), [
      member('member1', 2),
      member('member2', 1, 0, 1),
      member('member3', 1),
    ]);
    expect(decideFederatedHpa(s, 300_000)).toMatchObject({ reason: 'Unchanged', changed: false });
  });

  it('a first split and a move across clusters start the optimise period', () => {
    expect(decideFederatedHpa(state(staticWeighted), 7).optimisedAtMs).toBe(7);
    const s = afterInitial(state(prioritized), [member('member1', 10, 4, 6)]);
    expect(decideFederatedHpa({ ...s, starved: new Set(['member1']) }, 31_000).optimisedAtMs).toBe(31_000);
  });

  it('the max optimisation runs once a period and records when it ran', () => {
    const s = afterInitial(state(staticWeighted), [member('member1', 2), member('member2', 1), member('member3', 1)]);
    const early = decideFederatedHpa(s, 299_999);
    expect(early.changed).toBe(false);
    const due = decideFederatedHpa(s, 300_000);
    expect(due).toMatchObject({ reason: 'MaxOptimised', changed: true, optimisedAtMs: 300_000 });
    expect(due.assignments.reduce((n, a) => n + a.maxReplicas, 0)).toBe(12);
  });

  it('scalingToZero: every cluster at its min and utilisation below target sends the least weighted one to 0', () => {
    const spec = { ...staticWeighted, minReplicas: 2, scalingToZero: true };
    const s = afterInitial(state(spec), []);
    expect(s.previous!.assignments.map((a) => a.minReplicas)).toEqual([1, 1, 1]);
    const atMin = { ...s, members: [member('member1', 1), member('member2', 1), member('member3', 1)] };
    const d = decideFederatedHpa({ ...atMin, utilisation: { current: 20, target: 50 } }, 1000);
    expect(d).toMatchObject({ reason: 'ScaledToZero', changed: true });
    expect(d.assignments).toEqual(s.previous!.assignments);
    expect(d.bindingClusters).toEqual([
      { name: 'member1', replicas: 0 },
      { name: 'member2', replicas: 1 },
      { name: 'member3', replicas: 1 },
    ]);
    // without the utilisation, or above the target with nothing at zero, nothing happens
    expect(decideFederatedHpa(atMin, 1000).changed).toBe(false);
    expect(decideFederatedHpa({ ...atMin, utilisation: { current: 90, target: 50 } }, 1000).changed).toBe(false);
  });

  it('scalingToZero: utilisation above target brings a cluster at 0 back to its min', () => {
    const spec = { ...staticWeighted, minReplicas: 2, scalingToZero: true };
    const s = afterInitial(state(spec), []);
    const members = [member('member1', 0), member('member2', 3), member('member3', 4)];
    const d = decideFederatedHpa({ ...s, members, utilisation: { current: 90, target: 50 } }, 1000);
    expect(d).toMatchObject({ reason: 'ScaledFromZero', changed: true });
    expect(d.bindingClusters.find((b) => b.name === 'member1')).toEqual({ name: 'member1', replicas: 1 });
  });

  it('a member not reported yet counts with the replicas its binding asks for (scalingToZero keeps only a real 0)', () => {
    const spec = { ...staticWeighted, scalingToZero: true };
    const bindingClusters = [
      { name: 'member1', replicas: 1 },
      { name: 'member2', replicas: 1 },
      { name: 'member3', replicas: 1 },
    ];
    const d = decideFederatedHpa(state(spec, { bindingClusters }), 0);
    expect(d.bindingClusters.map((b) => b.replicas)).toEqual([1, 1, 1]);
    const unbound = decideFederatedHpa(state(spec, { bindingClusters: [{ name: 'member3', replicas: 3 }] }), 0);
    expect(unbound.bindingClusters.map((b) => b.replicas)).toEqual([0, 0, 3]);
  });

  it('the basis names the generation and each candidate’s readiness', () => {
    expect(assignmentBasis(state(staticWeighted))).toBe('1|member1:ready,member2:ready,member3:ready');
    expect(assignmentBasis(state(staticWeighted, { candidates: ['member2', 'gone'] }))).toBe(
      '1|gone:unknown,member2:ready',
    );
  });
});
