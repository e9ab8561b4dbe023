import { describe, expect, it } from 'vitest';
import { clampWithoutBehavior } from './normalize.js';
import { stabilizeDownscale } from './stabilization.js';
import { agedRecommendations, NOW_MS } from './testing/aged.js';

type WindowRow = {
  id: string;
  name: string;
  window: number;
  recommendations: { replicas: number; ageSeconds: number }[];
  proposed: number;
  want: number;
};
type ClampRow = {
  id: string;
  name: string;
  current: number;
  desired: number;
  min: number;
  max: number;
  want: { replicas: number; condition: string };
};

// Kubernetes' horizontal_test.go: TestNormalizeDesiredReplicas (downscale window) and
// TestConvertDesiredReplicasWithRules.
const cases: (WindowRow | ClampRow)[] = [
  {
    id: 'nobeh-stab-01',
    name: 'TestNormalizeDesiredReplicas: empty log',
    window: 300,
    recommendations: [],
    proposed: 5,
    want: 5,
  },
  {
    id: 'nobeh-stab-02',
    name: 'TestNormalizeDesiredReplicas: stabilize',
    window: 300,
    recommendations: [
      { replicas: 4, ageSeconds: 120 },
      { replicas: 5, ageSeconds: 60 },
    ],
    proposed: 3,
    want: 5,
  },
  {
    id: 'nobeh-stab-03',
    name: 'TestNormalizeDesiredReplicas: no stabilize',
    window: 300,
    recommendations: [
      { replicas: 1, ageSeconds: 120 },
      { replicas: 2, ageSeconds: 60 },
    ],
    proposed: 3,
    want: 3,
  },
  {
    id: 'nobeh-stab-04',
    name: 'TestNormalizeDesiredReplicas: no stabilize - old recommendations',
    window: 300,
    recommendations: [
      { replicas: 10, ageSeconds: 600 },
      { replicas: 9, ageSeconds: 540 },
    ],
    proposed: 3,
    want: 3,
  },
  {
    id: 'nobeh-stab-05',
    name: 'TestNormalizeDesiredReplicas: stabilize - old recommendations',
    window: 300,
    recommendations: [
      { replicas: 10, ageSeconds: 600 },
      { replicas: 4, ageSeconds: 60 },
      { replicas: 5, ageSeconds: 120 },
      { replicas: 9, ageSeconds: 540 },
    ],
    proposed: 3,
    want: 5,
  },
  {
    id: 'nobeh-clamp-01',
    name: 'TestConvertDesiredReplicasWithRules: 5 -> 7 in [3, 8]',
    current: 5,
    desired: 7,
    min: 3,
    max: 8,
    want: { replicas: 7, condition: 'DesiredWithinRange' },
  },
  {
    id: 'nobeh-clamp-02',
    name: 'TestConvertDesiredReplicasWithRules: 3 -> 1 in [2, 8]',
    current: 3,
    desired: 1,
    min: 2,
    max: 8,
    want: { replicas: 2, condition: 'TooFewReplicas' },
  },
  {
    id: 'nobeh-clamp-03',
    name: 'TestConvertDesiredReplicasWithRules: 1 -> 0 in [0, 10]',
    current: 1,
    desired: 0,
    min: 0,
    max: 10,
    want: { replicas: 0, condition: 'DesiredWithinRange' },
  },
  {
    id: 'nobeh-clamp-04',
    name: 'TestConvertDesiredReplicasWithRules: 20 -> 1000 in [1, 10]',
    current: 20,
    desired: 1000,
    min: 1,
    max: 10,
    want: { replicas: 10, condition: 'TooManyReplicas' },
  },
  {
    id: 'nobeh-clamp-05',
    name: 'TestConvertDesiredReplicasWithRules: 3 -> 1000 in [1, 2000]',
    current: 3,
    desired: 1000,
    min: 1,
    max: 2000,
    want: { replicas: 6, condition: 'ScaleUpLimit' },
  },
];

describe("Kubernetes' HPA without behavior: downscale stabilization window", () => {
  it.each(cases.filter((c): c is WindowRow => 'window' in c))(
    '$name',
    ({ window, recommendations, proposed, want }) => {
      const out = stabilizeDownscale({
        recommendations: agedRecommendations(recommendations),
        proposedReplicas: proposed,
        windowSeconds: window,
        nowMs: NOW_MS,
      });
      expect(out.replicas).toBe(want);
      expect(out.reason).toBe(want === proposed ? 'ReadyForNewScale' : 'ScaleDownStabilized');
    },
  );

  it('an entry exactly one window old still counts', () => {
    const recs = agedRecommendations([{ replicas: 9, ageSeconds: 300 }]);
    expect(
      stabilizeDownscale({ recommendations: recs, proposedReplicas: 3, windowSeconds: 300, nowMs: NOW_MS }).replicas,
    ).toBe(9);
    expect(
      stabilizeDownscale({ recommendations: recs, proposedReplicas: 3, windowSeconds: 299, nowMs: NOW_MS }).replicas,
    ).toBe(3);
  });

  it('stores the proposal in the last stale slot, else appends, and leaves the input alone', () => {
    const recs = agedRecommendations([
      { replicas: 10, ageSeconds: 600 },
      { replicas: 4, ageSeconds: 60 },
      { replicas: 9, ageSeconds: 540 },
    ]);
    const out = stabilizeDownscale({ recommendations: recs, proposedReplicas: 3, windowSeconds: 300, nowMs: NOW_MS });
    expect(out.recommendations).toEqual([recs[0], recs[1], { replicas: 3, atMs: NOW_MS }]);
    expect(recs[2]!.replicas).toBe(9);
    const fresh = stabilizeDownscale({
      recommendations: [recs[1]!],
      proposedReplicas: 3,
      windowSeconds: 300,
      nowMs: NOW_MS,
    });
    expect(fresh.recommendations).toHaveLength(2);
  });
});

describe("Kubernetes' HPA without behavior: clamp to [min, min(max, max(2 × current, 4))]", () => {
  it.each(cases.filter((c): c is ClampRow => 'desired' in c))('$name', ({ current, desired, min, max, want }) => {
    expect(
      clampWithoutBehavior({ currentReplicas: current, desiredReplicas: desired, minReplicas: min, maxReplicas: max }),
    ).toEqual({
      replicas: want.replicas,
      reason: want.condition,
    });
  });

  it('from one replica the scale-up limit is 4, not 2', () => {
    expect(clampWithoutBehavior({ currentReplicas: 1, desiredReplicas: 9, minReplicas: 1, maxReplicas: 10 })).toEqual({
      replicas: 4,
      reason: 'ScaleUpLimit',
    });
  });
});
