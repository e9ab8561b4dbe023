import { describe, expect, it } from 'vitest';
import { observeMembers, type MemberWorkload } from './calibration.js';
import { NoMemberReplicasError } from './errors.js';
import type { PodSample } from './group-pods.js';
import { emptyHistory, reconcileAutoscaler } from './reconcile.js';
import { resourceUtilizationReplicas } from './replica-calculator.js';

/** `n` ready pods requesting 1000m, each using `usageMilli`. */
const pods = (n: number, usageMilli: number): PodSample[] =>
  Array.from({ length: n }, () => ({ state: 'ready', requestMilli: 1000, valueMilli: usageMilli }));
const member = (cluster: string, replicas: number, usageMilli: number, clusterReady = true): MemberWorkload => ({
  cluster,
  clusterReady,
  specReplicas: replicas,
  statusReplicas: replicas,
  pods: pods(replicas, usageMilli),
});

type Row = {
  name: string;
  templateReplicas: number;
  targetUtilization: number;
  members: MemberWorkload[];
  want: { calibration: number; readyPods: number; replicas: number };
};

// Karmada's FederatedHPA (federatedhpa-v2 proposal and the shipped replica calculator): one replica count for the
// resource template from the Ready member clusters' pods, divided by Σ member spec.replicas / template replicas.
const cases: Row[] = [
  {
    // Two clusters each run the full template (2 pods) at 200 % of a 50 % target: 4, not 8.
    name: 'Duplicated placement: 2 clusters × 2 pods at 200 % of target -> 4',
    templateReplicas: 2,
    targetUtilization: 50,
    members: [member('member1', 2, 1000), member('member2', 2, 1000)],
    want: { calibration: 2, readyPods: 4, replicas: 4 },
  },
  {
    name: 'Divided placement: 1 + 1 pods at 200 % of target -> 4',
    templateReplicas: 2,
    targetUtilization: 50,
    members: [member('member1', 1, 1000), member('member2', 1, 1000)],
    want: { calibration: 1, readyPods: 2, replicas: 4 },
  },
  {
    // Cluster A (10 of the template's 40 replicas) is not Ready: its pods and replicas are left out, and the
    // proposal over B's 30 pods at 150 % of target is rescaled to template units: ceil(1.5 × 30 / 0.75) = 60.
    // (The proposal's prose says ratio × 30 = 45; the shipped formula, which Flotilla follows, gives 60.)
    name: 'a lost cluster: template 40, cluster A (10) not Ready, cluster B 30 pods at 150 % -> 60',
    templateReplicas: 40,
    targetUtilization: 50,
    members: [member('member-a', 10, 2000, false), member('member-b', 30, 750)],
    want: { calibration: 0.75, readyPods: 30, replicas: 60 },
  },
  {
    name: 'Divided placement within tolerance keeps the template replicas',
    templateReplicas: 3,
    targetUtilization: 50,
    members: [member('member1', 2, 520), member('member2', 1, 520)],
    want: { calibration: 1, readyPods: 3, replicas: 3 },
  },
  {
    name: 'Duplicated placement scaling down: 3 clusters × 4 pods at 25 % with a 50 % target -> 2',
    templateReplicas: 4,
    targetUtilization: 50,
    members: [member('a', 4, 250), member('b', 4, 250), member('c', 4, 250)],
    want: { calibration: 3, readyPods: 12, replicas: 2 },
  },
];

describe("Karmada's FederatedHPA calibration", () => {
  it.each(cases)('$name', ({ templateReplicas, targetUtilization, members, want }) => {
    const observed = observeMembers(templateReplicas, members);
    expect(observed.calibration).toBe(want.calibration);
    expect(observed.pods).toHaveLength(want.readyPods);
    const out = resourceUtilizationReplicas({
      currentReplicas: templateReplicas,
      pods: observed.pods,
      resource: 'cpu',
      targetUtilization,
      calibration: observed.calibration,
    });
    expect(out.replicas).toBe(want.replicas);
  });

  it('a whole hpa-assigner pass writes the template replicas: the lost-cluster example within min/max', () => {
    const members = [member('member-a', 10, 2000, false), member('member-b', 30, 750)];
    const observed = observeMembers(40, members);
    const cpu = resourceUtilizationReplicas({
      currentReplicas: 40,
      pods: observed.pods,
      resource: 'cpu',
      targetUtilization: 50,
      calibration: observed.calibration,
    });
    const base = { specReplicas: 40, minReplicas: 1, proposals: [{ replicas: cpu.replicas }], nowMs: 0 };
    expect(reconcileAutoscaler({ ...base, maxReplicas: 100, history: emptyHistory() }).desiredReplicas).toBe(60);
    const capped = reconcileAutoscaler({ ...base, maxReplicas: 50, history: emptyHistory() });
    expect(capped).toMatchObject({ desiredReplicas: 50, rescale: true });
    expect(capped.conditions).toContainEqual(
      expect.objectContaining({ type: 'ScalingLimited', reason: 'TooManyReplicas' }),
    );
  });

  it('sums spec and status replicas of Ready clusters only', () => {
    const observed = observeMembers(4, [
      member('a', 2, 500),
      member('b', 3, 500, false),
      { ...member('c', 2, 500), statusReplicas: 1 },
    ]);
    expect(observed).toMatchObject({ specReplicas: 4, statusReplicas: 3, calibration: 1, clusters: ['a', 'c'] });
  });

  it('fails when no Ready cluster has replicas', () => {
    const run = () => observeMembers(4, [member('a', 2, 500, false)]);
    expect(run).toThrow(NoMemberReplicasError);
    expect(run).toThrow('failed to get replicas in any of clusters (ready clusters: none)');
  });
});
