import { describe, expect, it } from 'vitest';
import { stabilizeWithBehavior } from './stabilization.js';
import { agedRecommendations, NOW_MS } from './testing/aged.js';

type Row = {
  id: string;
  name: string;
  recommendations: { replicas: number; ageSeconds: number }[];
  current: number;
  proposed: number;
  upWindow: number;
  downWindow: number;
  want: number;
};

// Kubernetes' horizontal_test.go TestNormalizeDesiredReplicasWithBehavior (the 1.21+ envelope of both windows).
const cases: Row[] = [
  {
    id: 'stab-01',
    name: 'TestNormalizeDesiredReplicasWithBehavior: empty recommendations for scaling down',
    recommendations: [],
    current: 100,
    proposed: 5,
    upWindow: 0,
    downWindow: 300,
    want: 5,
  },
  {
    id: 'stab-02',
    name: 'TestNormalizeDesiredReplicasWithBehavior: simple scale down stabilization',
    recommendations: [
      { replicas: 4, ageSeconds: 120 },
      { replicas: 5, ageSeconds: 60 },
    ],
    current: 100,
    proposed: 3,
    upWindow: 0,
    downWindow: 180,
    want: 5,
  },
  {
    id: 'stab-03',
    name: 'TestNormalizeDesiredReplicasWithBehavior: simple scale up stabilization',
    recommendations: [
      { replicas: 4, ageSeconds: 120 },
      { replicas: 5, ageSeconds: 60 },
    ],
    current: 1,
    proposed: 7,
    upWindow: 300,
    downWindow: 0,
    want: 4,
  },
  {
    id: 'stab-04',
    name: 'TestNormalizeDesiredReplicasWithBehavior: no scale down stabilization',
    recommendations: [
      { replicas: 1, ageSeconds: 120 },
      { replicas: 2, ageSeconds: 60 },
    ],
    current: 100,
    proposed: 3,
    upWindow: 300,
    downWindow: 0,
    want: 3,
  },
  {
    id: 'stab-05',
    name: 'TestNormalizeDesiredReplicasWithBehavior: no scale up stabilization',
    recommendations: [
      { replicas: 4, ageSeconds: 120 },
      { replicas: 5, ageSeconds: 60 },
    ],
    current: 1,
    proposed: 3,
    upWindow: 0,
    downWindow: 300,
    want: 3,
  },
  {
    id: 'stab-06',
    name: 'TestNormalizeDesiredReplicasWithBehavior: no scale down stabilization, old recommendations',
    recommendations: [
      { replicas: 10, ageSeconds: 600 },
      { replicas: 9, ageSeconds: 540 },
    ],
    current: 100,
    proposed: 3,
    upWindow: 0,
    downWindow: 300,
    want: 3,
  },
  {
    id: 'stab-07',
    name: 'TestNormalizeDesiredReplicasWithBehavior: no scale up stabilization, old recommendations',
    recommendations: [
      { replicas: 10, ageSeconds: 600 },
      { replicas: 9, ageSeconds: 540 },
    ],
    current: 1,
    proposed: 100,
    upWindow: 0,
    downWindow: 300,
    want: 100,
  },
  {
    id: 'stab-08',
    name: 'TestNormalizeDesiredReplicasWithBehavior: scale down stabilization with obsolete entries',
    recommendations: [
      { replicas: 10, ageSeconds: 600 },
      { replicas: 4, ageSeconds: 60 },
      { replicas: 5, ageSeconds: 120 },
      { replicas: 9, ageSeconds: 540 },
    ],
    current: 100,
    proposed: 3,
    upWindow: 0,
    downWindow: 180,
    want: 5,
  },
  {
    id: 'stab-09',
    name: 'TestNormalizeDesiredReplicasWithBehavior: scale up stabilization with obsolete entry',
    recommendations: [
      { replicas: 10, ageSeconds: 6000 },
      { replicas: 6, ageSeconds: 60 },
      { replicas: 5, ageSeconds: 120 },
      { replicas: 9, ageSeconds: 180 },
    ],
    current: 1,
    proposed: 100,
    upWindow: 300,
    downWindow: 300,
    want: 5,
  },
  {
    id: 'stab-10',
    name: 'TestNormalizeDesiredReplicasWithBehavior: up and down windows: do not scale up when proposal goes down',
    recommendations: [
      { replicas: 2, ageSeconds: 6000 },
      { replicas: 3, ageSeconds: 180 },
    ],
    current: 2,
    proposed: 1,
    upWindow: 300,
    downWindow: 300,
    want: 2,
  },
  {
    id: 'stab-11',
    name: 'TestNormalizeDesiredReplicasWithBehavior: up and down windows: do not scale down when proposal goes up',
    recommendations: [
      { replicas: 2, ageSeconds: 6000 },
      { replicas: 1, ageSeconds: 180 },
    ],
    current: 2,
    proposed: 3,
    upWindow: 300,
    downWindow: 300,
    want: 2,
  },
];

describe("Kubernetes' HPA with behavior: stabilization windows", () => {
  it.each(cases)('$name', ({ recommendations, current, proposed, upWindow, downWindow, want }) => {
    const out = stabilizeWithBehavior({
      recommendations: agedRecommendations(recommendations),
      currentReplicas: current,
      proposedReplicas: proposed,
      scaleUpWindowSeconds: upWindow,
      scaleDownWindowSeconds: downWindow,
      nowMs: NOW_MS,
    });
    expect(out.replicas).toBe(want);
  });

  it('names the direction that was held back', () => {
    const recs = agedRecommendations([{ replicas: 4, ageSeconds: 60 }]);
    const base = { recommendations: recs, scaleUpWindowSeconds: 300, scaleDownWindowSeconds: 300, nowMs: NOW_MS };
    expect(stabilizeWithBehavior({ ...base, currentReplicas: 1, proposedReplicas: 7 }).reason).toBe(
      'ScaleUpStabilized',
    );
    expect(stabilizeWithBehavior({ ...base, currentReplicas: 9, proposedReplicas: 2 }).reason).toBe(
      'ScaleDownStabilized',
    );
    expect(stabilizeWithBehavior({ ...base, currentReplicas: 4, proposedReplicas: 4 }).reason).toBe('ReadyForNewScale');
  });

  it('reuses a slot only when it is older than both windows', () => {
    const recs = agedRecommendations([
      { replicas: 7, ageSeconds: 200 },
      { replicas: 8, ageSeconds: 400 },
    ]);
    const base = { currentReplicas: 5, proposedReplicas: 5, nowMs: NOW_MS };
    const both = stabilizeWithBehavior({
      ...base,
      recommendations: recs,
      scaleUpWindowSeconds: 0,
      scaleDownWindowSeconds: 300,
    });
    expect(both.recommendations).toEqual([recs[0], { replicas: 5, atMs: NOW_MS }]);
    const longUp = stabilizeWithBehavior({
      ...base,
      recommendations: recs,
      scaleUpWindowSeconds: 600,
      scaleDownWindowSeconds: 300,
    });
    expect(longUp.recommendations).toHaveLength(3);
  });
});
