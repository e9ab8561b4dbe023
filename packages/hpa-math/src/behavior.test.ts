import type { HpaBehavior } from '@flotilla/api';
import { describe, expect, it } from 'vitest';
import {
  limitByBehaviorRate,
  recordScaleEvent,
  resolveBehavior,
  scaleDownLimit,
  scaleUpLimit,
  type ScalingRules,
} from './behavior.js';
import { agedEvents, NOW_MS } from './testing/aged.js';

type AgedEvent = { replicaChange: number; ageSeconds: number };

/** The event histories Kubernetes' TestScalingWithRules reuses across its cases. */
const threeRecentEvents: AgedEvent[] = [
  { replicaChange: 1, ageSeconds: 100 },
  { replicaChange: 5, ageSeconds: 60 },
  { replicaChange: 9, ageSeconds: 20 },
];
const fourEventsEvery30s: AgedEvent[] = [
  { replicaChange: 8, ageSeconds: 105 },
  { replicaChange: 12, ageSeconds: 75 },
  { replicaChange: 9, ageSeconds: 45 },
  { replicaChange: 11, ageSeconds: 15 },
];
const tenEveryFortySeconds: AgedEvent[] = [
  { replicaChange: 10, ageSeconds: 100 },
  { replicaChange: 10, ageSeconds: 60 },
  { replicaChange: 10, ageSeconds: 20 },
];

type RateRow = {
  id: string;
  name: string;
  current: number;
  proposed: number;
  min: number;
  max: number;
  scaleUp: ScalingRules | undefined;
  scaleDown: ScalingRules | undefined;
  upEvents: AgedEvent[];
  downEvents: AgedEvent[];
  /** `k8s_1_22_replicas`: what Kubernetes 1.22 gave, before scale events of the other direction counted. */
  want: { replicas: number; condition: string; k8s_1_22_replicas?: number };
};
type LimitRow = {
  id: string;
  name: string;
  fn: 'scaleUpLimit' | 'scaleDownLimit';
  current: number;
  rules: Pick<Required<ScalingRules>, 'selectPolicy' | 'policies'>;
  want: number;
};

// Kubernetes' horizontal_test.go TestScalingWithRules, TestCalculateScaleUpLimitWithScalingRules,
// TestCalculateScaleDownLimitWithBehaviors, and selectPolicy Disabled in both directions.
const cases: (RateRow | LimitRow)[] = [
  {
    id: 'rate-01',
    name: 'TestScalingWithRules: prenormalized desired replicas within range',
    current: 5,
    proposed: 7,
    min: 3,
    max: 8,
    scaleUp: undefined,
    scaleDown: undefined,
    upEvents: [],
    downEvents: [],
    want: { replicas: 7, condition: 'DesiredWithinRange' },
  },
  {
    id: 'rate-02',
    name: 'TestScalingWithRules: prenormalized desired replicas < minReplicas',
    current: 3,
    proposed: 1,
    min: 2,
    max: 8,
    scaleUp: undefined,
    scaleDown: undefined,
    upEvents: [],
    downEvents: [],
    want: { replicas: 2, condition: 'TooFewReplicas' },
  },
  {
    id: 'rate-03',
    name: 'TestScalingWithRules: within range when minReplicas is 0',
    current: 1,
    proposed: 0,
    min: 0,
    max: 10,
    scaleUp: undefined,
    scaleDown: undefined,
    upEvents: [],
    downEvents: [],
    want: { replicas: 0, condition: 'DesiredWithinRange' },
  },
  {
    id: 'rate-04',
    name: 'TestScalingWithRules: maxReplicas is the limit because maxReplicas < scaleUpLimit',
    current: 20,
    proposed: 1000,
    min: 1,
    max: 10,
    scaleUp: undefined,
    scaleDown: undefined,
    upEvents: [],
    downEvents: [],
    want: { replicas: 10, condition: 'TooManyReplicas' },
  },
  {
    id: 'rate-05',
    name: 'TestScalingWithRules: desired replica count is more than the maximum replica count',
    current: 100,
    proposed: 1000,
    min: 100,
    max: 150,
    scaleUp: undefined,
    scaleDown: undefined,
    upEvents: [],
    downEvents: [],
    want: { replicas: 150, condition: 'TooManyReplicas' },
  },
  {
    id: 'rate-06',
    name: 'TestScalingWithRules: scaleUpLimit < maxReplicas with user policies',
    current: 3,
    proposed: 1000,
    min: 1,
    max: 2000,
    scaleUp: {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [{ type: 'Percent', value: 1, periodSeconds: 60 }],
    },
    scaleDown: undefined,
    upEvents: [],
    downEvents: [],
    want: { replicas: 4, condition: 'ScaleUpLimit' },
  },
  {
    id: 'rate-07',
    name: 'TestScalingWithRules: scaleDownLimit > minReplicas with user policies',
    current: 1000,
    proposed: 3,
    min: 3,
    max: 2000,
    scaleUp: undefined,
    scaleDown: {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [{ type: 'Pods', value: 20, periodSeconds: 60 }],
    },
    upEvents: [],
    downEvents: [],
    want: { replicas: 980, condition: 'ScaleDownLimit' },
  },
  {
    id: 'rate-08',
    name: 'TestScalingWithRules: scaleUp with default behavior',
    current: 10,
    proposed: 50,
    min: 1,
    max: 1000,
    scaleUp: undefined,
    scaleDown: undefined,
    upEvents: [],
    downEvents: [],
    want: { replicas: 20, condition: 'ScaleUpLimit' },
  },
  {
    id: 'rate-09',
    name: 'TestScalingWithRules: scaleUp with pods policy larger than percent policy',
    current: 10,
    proposed: 500,
    min: 1,
    max: 1000,
    scaleUp: {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [
        { type: 'Pods', value: 100, periodSeconds: 60 },
        { type: 'Percent', value: 100, periodSeconds: 60 },
      ],
    },
    scaleDown: undefined,
    upEvents: [],
    downEvents: [],
    want: { replicas: 110, condition: 'ScaleUpLimit' },
  },
  {
    id: 'rate-10',
    name: 'TestScalingWithRules: scaleUp with percent policy larger than pods policy',
    current: 10,
    proposed: 500,
    min: 1,
    max: 1000,
    scaleUp: {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [
        { type: 'Pods', value: 2, periodSeconds: 60 },
        { type: 'Percent', value: 100, periodSeconds: 60 },
      ],
    },
    scaleDown: undefined,
    upEvents: [],
    downEvents: [],
    want: { replicas: 20, condition: 'ScaleUpLimit' },
  },
  {
    id: 'rate-11',
    name: 'TestScalingWithRules: scaleUp with large pod policy',
    current: 10,
    proposed: 50,
    min: 1,
    max: 1000,
    scaleUp: {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [{ type: 'Pods', value: 100, periodSeconds: 60 }],
    },
    scaleDown: undefined,
    upEvents: [],
    downEvents: [],
    want: { replicas: 50, condition: 'DesiredWithinRange' },
  },
  {
    id: 'rate-12',
    name: 'TestScalingWithRules: scaleUp with very large pod policy',
    current: 10,
    proposed: 50,
    min: 1,
    max: 1000,
    scaleUp: {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [{ type: 'Pods', value: 10000, periodSeconds: 60 }],
    },
    scaleDown: undefined,
    upEvents: [],
    downEvents: [],
    want: { replicas: 50, condition: 'DesiredWithinRange' },
  },
  {
    id: 'rate-13',
    name: 'TestScalingWithRules: scaleUp with pod policy limitation',
    current: 10,
    proposed: 50,
    min: 1,
    max: 1000,
    scaleUp: {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [{ type: 'Pods', value: 30, periodSeconds: 60 }],
    },
    scaleDown: undefined,
    upEvents: [],
    downEvents: [],
    want: { replicas: 40, condition: 'ScaleUpLimit' },
  },
  {
    id: 'rate-14',
    name: 'TestScalingWithRules: scaleUp with percent policy limitation',
    current: 10,
    proposed: 50,
    min: 1,
    max: 1000,
    scaleUp: {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [{ type: 'Percent', value: 200, periodSeconds: 60 }],
    },
    scaleDown: undefined,
    upEvents: [],
    downEvents: [],
    want: { replicas: 30, condition: 'ScaleUpLimit' },
  },
  {
    id: 'rate-15',
    name: 'TestScalingWithRules: scaleDown with percent policy larger than pod policy',
    current: 100,
    proposed: 2,
    min: 1,
    max: 1000,
    scaleUp: undefined,
    scaleDown: {
      stabilizationWindowSeconds: 300,
      selectPolicy: 'Max',
      policies: [
        { type: 'Pods', value: 20, periodSeconds: 60 },
        { type: 'Percent', value: 1, periodSeconds: 60 },
      ],
    },
    upEvents: [],
    downEvents: [],
    want: { replicas: 80, condition: 'ScaleDownLimit' },
  },
  {
    id: 'rate-16',
    name: 'TestScalingWithRules: scaleDown with pod policy larger than percent policy',
    current: 100,
    proposed: 2,
    min: 1,
    max: 1000,
    scaleUp: undefined,
    scaleDown: {
      stabilizationWindowSeconds: 300,
      selectPolicy: 'Max',
      policies: [
        { type: 'Pods', value: 2, periodSeconds: 60 },
        { type: 'Percent', value: 1, periodSeconds: 60 },
      ],
    },
    upEvents: [],
    downEvents: [],
    want: { replicas: 98, condition: 'ScaleDownLimit' },
  },
  {
    id: 'rate-17',
    name: 'TestScalingWithRules: scaleDown limited by minReplicas with large pod policy',
    current: 10,
    proposed: 0,
    min: 1,
    max: 1000,
    scaleUp: undefined,
    scaleDown: {
      stabilizationWindowSeconds: 300,
      selectPolicy: 'Max',
      policies: [{ type: 'Pods', value: 100, periodSeconds: 60 }],
    },
    upEvents: [],
    downEvents: [],
    want: { replicas: 1, condition: 'TooFewReplicas' },
  },
  {
    id: 'rate-18',
    name: 'TestScalingWithRules: scaleDown limited by minReplicas with large percent policy',
    current: 10,
    proposed: 2,
    min: 5,
    max: 1000,
    scaleUp: undefined,
    scaleDown: {
      stabilizationWindowSeconds: 300,
      selectPolicy: 'Max',
      policies: [{ type: 'Percent', value: 100, periodSeconds: 60 }],
    },
    upEvents: [],
    downEvents: [],
    want: { replicas: 5, condition: 'TooFewReplicas' },
  },
  {
    id: 'rate-19',
    name: 'TestScalingWithRules: scaleDown with pod policy limitation',
    current: 10,
    proposed: 2,
    min: 1,
    max: 1000,
    scaleUp: undefined,
    scaleDown: {
      stabilizationWindowSeconds: 300,
      selectPolicy: 'Max',
      policies: [{ type: 'Pods', value: 5, periodSeconds: 60 }],
    },
    upEvents: [],
    downEvents: [],
    want: { replicas: 5, condition: 'ScaleDownLimit' },
  },
  {
    id: 'rate-20',
    name: 'TestScalingWithRules: scaleDown with percent policy limitation',
    current: 10,
    proposed: 5,
    min: 1,
    max: 1000,
    scaleUp: undefined,
    scaleDown: {
      stabilizationWindowSeconds: 300,
      selectPolicy: 'Max',
      policies: [{ type: 'Percent', value: 50, periodSeconds: 60 }],
    },
    upEvents: [],
    downEvents: [],
    want: { replicas: 5, condition: 'DesiredWithinRange' },
  },
  {
    id: 'rate-21',
    name: 'TestScalingWithRules: scaleUp limited by maxReplicas, pod policy and events',
    current: 100,
    proposed: 500,
    min: 1,
    max: 200,
    scaleUp: {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [{ type: 'Pods', value: 300, periodSeconds: 60 }],
    },
    scaleDown: undefined,
    upEvents: threeRecentEvents,
    downEvents: [],
    want: { replicas: 200, condition: 'TooManyReplicas' },
  },
  {
    id: 'rate-22',
    name: 'TestScalingWithRules: scaleUp limited by maxReplicas, percent policy and events',
    current: 100,
    proposed: 500,
    min: 1,
    max: 200,
    scaleUp: {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [{ type: 'Percent', value: 10000, periodSeconds: 60 }],
    },
    scaleDown: undefined,
    upEvents: threeRecentEvents,
    downEvents: [],
    want: { replicas: 200, condition: 'TooManyReplicas' },
  },
  {
    id: 'rate-23',
    name: 'TestScalingWithRules: scaleUp blocked: limit below current after recent scale-ups',
    current: 100,
    proposed: 500,
    min: 1,
    max: 1000,
    scaleUp: {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [{ type: 'Pods', value: 5, periodSeconds: 120 }],
    },
    scaleDown: undefined,
    upEvents: threeRecentEvents,
    downEvents: [],
    want: { replicas: 100, condition: 'ScaleUpLimit' },
  },
  {
    id: 'rate-24',
    name: 'TestScalingWithRules: scaleUp pod policy with previous events (100-15+150)',
    current: 100,
    proposed: 500,
    min: 1,
    max: 1000,
    scaleUp: {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [{ type: 'Pods', value: 150, periodSeconds: 120 }],
    },
    scaleDown: undefined,
    upEvents: threeRecentEvents,
    downEvents: [],
    want: { replicas: 235, condition: 'ScaleUpLimit' },
  },
  {
    id: 'rate-25',
    name: 'TestScalingWithRules: scaleUp percent policy with previous events ((100-15)*3)',
    current: 100,
    proposed: 500,
    min: 1,
    max: 1000,
    scaleUp: {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [{ type: 'Percent', value: 200, periodSeconds: 120 }],
    },
    scaleDown: undefined,
    upEvents: threeRecentEvents,
    downEvents: [],
    want: { replicas: 255, condition: 'ScaleUpLimit' },
  },
  {
    id: 'rate-26',
    name: 'TestScalingWithRules: scaleUp percent policy with previous up AND down events',
    current: 6,
    proposed: 24,
    min: 1,
    max: 1000,
    scaleUp: {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [{ type: 'Percent', value: 300, periodSeconds: 300 }],
    },
    scaleDown: undefined,
    upEvents: [{ replicaChange: 4, ageSeconds: 60 }],
    downEvents: [{ replicaChange: 2, ageSeconds: 60 }],
    want: { replicas: 16, condition: 'ScaleUpLimit', k8s_1_22_replicas: 8 },
  },
  {
    id: 'rate-27',
    name: 'TestScalingWithRules: scaleDown default policy with previous events',
    current: 10,
    proposed: 5,
    min: 1,
    max: 1000,
    scaleUp: undefined,
    scaleDown: undefined,
    upEvents: [],
    downEvents: threeRecentEvents,
    want: { replicas: 5, condition: 'DesiredWithinRange' },
  },
  {
    id: 'rate-28',
    name: 'TestScalingWithRules: scaleDown minReplicas=1 with large pod policy and events',
    current: 100,
    proposed: 0,
    min: 1,
    max: 1000,
    scaleUp: undefined,
    scaleDown: {
      stabilizationWindowSeconds: 300,
      selectPolicy: 'Max',
      policies: [{ type: 'Pods', value: 115, periodSeconds: 120 }],
    },
    upEvents: [],
    downEvents: threeRecentEvents,
    want: { replicas: 1, condition: 'TooFewReplicas' },
  },
  {
    id: 'rate-29',
    name: 'TestScalingWithRules: scaleDown minReplicas=5 with large pod policy and events',
    current: 100,
    proposed: 0,
    min: 5,
    max: 1000,
    scaleUp: undefined,
    scaleDown: {
      stabilizationWindowSeconds: 300,
      selectPolicy: 'Max',
      policies: [{ type: 'Pods', value: 130, periodSeconds: 120 }],
    },
    upEvents: [],
    downEvents: threeRecentEvents,
    want: { replicas: 5, condition: 'TooFewReplicas' },
  },
  {
    id: 'rate-30',
    name: 'TestScalingWithRules: scaleDown minReplicas=5 with 100% policy and events',
    current: 100,
    proposed: 2,
    min: 5,
    max: 1000,
    scaleUp: undefined,
    scaleDown: {
      stabilizationWindowSeconds: 300,
      selectPolicy: 'Max',
      policies: [{ type: 'Percent', value: 100, periodSeconds: 120 }],
    },
    upEvents: [],
    downEvents: threeRecentEvents,
    want: { replicas: 5, condition: 'TooFewReplicas' },
  },
  {
    id: 'rate-31',
    name: 'TestScalingWithRules: scaleDown pod policy with events (100+15-5 > 100 -> keep 100)',
    current: 100,
    proposed: 2,
    min: 1,
    max: 1000,
    scaleUp: undefined,
    scaleDown: {
      stabilizationWindowSeconds: 300,
      selectPolicy: 'Max',
      policies: [{ type: 'Pods', value: 5, periodSeconds: 120 }],
    },
    upEvents: [],
    downEvents: threeRecentEvents,
    want: { replicas: 100, condition: 'ScaleDownLimit' },
  },
  {
    id: 'rate-32',
    name: 'TestScalingWithRules: scaleDown percent policy with events ((100+12)*0.5)',
    current: 100,
    proposed: 0,
    min: 1,
    max: 1000,
    scaleUp: undefined,
    scaleDown: {
      stabilizationWindowSeconds: 300,
      selectPolicy: 'Max',
      policies: [{ type: 'Percent', value: 50, periodSeconds: 120 }],
    },
    upEvents: [],
    downEvents: [
      { replicaChange: 2, ageSeconds: 100 },
      { replicaChange: 4, ageSeconds: 60 },
      { replicaChange: 6, ageSeconds: 20 },
    ],
    want: { replicas: 56, condition: 'ScaleDownLimit' },
  },
  {
    id: 'rate-33',
    name: 'TestScalingWithRules: scaleDown percent policy with previous up AND down events',
    current: 10,
    proposed: 1,
    min: 1,
    max: 1000,
    scaleUp: undefined,
    scaleDown: {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [{ type: 'Percent', value: 50, periodSeconds: 180 }],
    },
    upEvents: [{ replicaChange: 2, ageSeconds: 60 }],
    downEvents: [{ replicaChange: 4, ageSeconds: 60 }],
    want: { replicas: 6, condition: 'ScaleDownLimit', k8s_1_22_replicas: 7 },
  },
  {
    id: 'rate-34',
    name: 'TestScalingWithRules: scaleDown prevented by previous events',
    current: 100,
    proposed: 0,
    min: 1,
    max: 1000,
    scaleUp: undefined,
    scaleDown: {
      stabilizationWindowSeconds: 300,
      selectPolicy: 'Max',
      policies: [{ type: 'Percent', value: 10, periodSeconds: 120 }],
    },
    upEvents: [],
    downEvents: tenEveryFortySeconds,
    want: { replicas: 100, condition: 'ScaleDownLimit' },
  },
  {
    id: 'rate-35',
    name: 'TestScalingWithRules: scaleDown still allowed despite events (negative limit)',
    current: 10,
    proposed: 5,
    min: 1,
    max: 1000,
    scaleUp: undefined,
    scaleDown: {
      stabilizationWindowSeconds: 300,
      selectPolicy: 'Max',
      policies: [{ type: 'Percent', value: 1000, periodSeconds: 120 }],
    },
    upEvents: [],
    downEvents: tenEveryFortySeconds,
    want: { replicas: 5, condition: 'DesiredWithinRange' },
  },
  {
    id: 'rate-36',
    name: 'TestScalingWithRules: events older than the only policy period are ignored (up)',
    current: 100,
    proposed: 200,
    min: 1,
    max: 1000,
    scaleUp: {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [{ type: 'Pods', value: 1000, periodSeconds: 60 }],
    },
    scaleDown: undefined,
    upEvents: fourEventsEvery30s,
    downEvents: [],
    want: { replicas: 200, condition: 'DesiredWithinRange' },
  },
  {
    id: 'rate-37',
    name: 'TestScalingWithRules: two up policies with different periods',
    current: 100,
    proposed: 200,
    min: 1,
    max: 1000,
    scaleUp: {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [
        { type: 'Pods', value: 1000, periodSeconds: 120 },
        { type: 'Percent', value: 100, periodSeconds: 60 },
      ],
    },
    scaleDown: undefined,
    upEvents: fourEventsEvery30s,
    downEvents: [],
    want: { replicas: 200, condition: 'DesiredWithinRange' },
  },
  {
    id: 'rate-38',
    name: 'TestScalingWithRules: events older than the only policy period are ignored (down)',
    current: 100,
    proposed: 5,
    min: 1,
    max: 1000,
    scaleUp: undefined,
    scaleDown: {
      stabilizationWindowSeconds: 300,
      selectPolicy: 'Max',
      policies: [{ type: 'Pods', value: 1000, periodSeconds: 60 }],
    },
    upEvents: [],
    downEvents: fourEventsEvery30s,
    want: { replicas: 5, condition: 'DesiredWithinRange' },
  },
  {
    id: 'rate-min-up',
    name: 'TestCalculateScaleUpLimitWithScalingRules',
    fn: 'scaleUpLimit',
    current: 1,
    rules: {
      selectPolicy: 'Min',
      policies: [
        { type: 'Pods', value: 2, periodSeconds: 60 },
        { type: 'Percent', value: 50, periodSeconds: 60 },
      ],
    },
    want: 2,
  },
  {
    id: 'rate-min-down',
    name: 'TestCalculateScaleDownLimitWithBehaviors',
    fn: 'scaleDownLimit',
    current: 5,
    rules: {
      selectPolicy: 'Min',
      policies: [
        { type: 'Pods', value: 2, periodSeconds: 60 },
        { type: 'Percent', value: 50, periodSeconds: 60 },
      ],
    },
    want: 3,
  },
  {
    id: 'rate-disabled-up',
    name: 'selectPolicy Disabled holds a scale-up',
    current: 5,
    proposed: 9,
    min: 1,
    max: 20,
    scaleUp: { selectPolicy: 'Disabled' },
    scaleDown: undefined,
    upEvents: [],
    downEvents: [],
    want: { replicas: 5, condition: 'ScaleUpLimit' },
  },
  {
    id: 'rate-disabled-down',
    name: 'selectPolicy Disabled holds a scale-down',
    current: 5,
    proposed: 2,
    min: 1,
    max: 20,
    scaleUp: undefined,
    scaleDown: { selectPolicy: 'Disabled' },
    upEvents: [],
    downEvents: [],
    want: { replicas: 5, condition: 'ScaleDownLimit' },
  },
];

describe("Kubernetes' HPA with behavior: rate policies", () => {
  it.each(cases.filter((c): c is RateRow => !('fn' in c)))('$name', (c) => {
    const behavior: HpaBehavior = {};
    if (c.scaleUp) behavior.scaleUp = c.scaleUp;
    if (c.scaleDown) behavior.scaleDown = c.scaleDown;
    const out = limitByBehaviorRate({
      currentReplicas: c.current,
      desiredReplicas: c.proposed,
      minReplicas: c.min,
      maxReplicas: c.max,
      behavior: resolveBehavior(behavior),
      events: { scaleUp: agedEvents(c.upEvents), scaleDown: agedEvents(c.downEvents) },
      nowMs: NOW_MS,
    });
    expect(out).toEqual({ replicas: c.want.replicas, reason: c.want.condition });
  });

  it.each(cases.filter((c): c is LimitRow => 'fn' in c))('$name', ({ fn, current, rules, want }) => {
    const limit = fn === 'scaleUpLimit' ? scaleUpLimit : scaleDownLimit;
    expect(limit(current, { scaleUp: [], scaleDown: [] }, rules, NOW_MS)).toBe(want);
  });

  it('an event exactly one period old no longer counts', () => {
    const rules = { selectPolicy: 'Max' as const, policies: [{ type: 'Pods' as const, value: 4, periodSeconds: 60 }] };
    const events = (ageSeconds: number) => ({ scaleUp: agedEvents([{ replicaChange: 4, ageSeconds }]), scaleDown: [] });
    expect(scaleUpLimit(10, events(59), rules, NOW_MS)).toBe(10);
    expect(scaleUpLimit(10, events(60), rules, NOW_MS)).toBe(14);
  });
});

describe('resolveBehavior (autoscaling/v2 defaults, field by field)', () => {
  it('fills both directions when behavior is empty; the scale-down window is the controller default', () => {
    expect(resolveBehavior({})).toEqual({
      scaleUp: {
        stabilizationWindowSeconds: 0,
        selectPolicy: 'Max',
        policies: [
          { type: 'Pods', value: 4, periodSeconds: 15 },
          { type: 'Percent', value: 100, periodSeconds: 15 },
        ],
      },
      scaleDown: {
        stabilizationWindowSeconds: 300,
        selectPolicy: 'Max',
        policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
      },
    });
    expect(resolveBehavior({}, 120).scaleDown.stabilizationWindowSeconds).toBe(120);
  });

  it('keeps given fields and defaults the rest; given policies replace the default list', () => {
    const behavior: HpaBehavior = {
      scaleUp: { selectPolicy: 'Min', policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] },
      scaleDown: { stabilizationWindowSeconds: 30 },
    };
    const resolved = resolveBehavior(behavior);
    expect(resolved.scaleUp).toEqual({
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Min',
      policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }],
    });
    expect(resolved.scaleDown.stabilizationWindowSeconds).toBe(30);
    expect(resolved.scaleDown.policies).toEqual([{ type: 'Percent', value: 100, periodSeconds: 15 }]);
    expect(behavior.scaleDown).toEqual({ stabilizationWindowSeconds: 30 });
  });
});

describe('recordScaleEvent', () => {
  const behavior = resolveBehavior({ scaleUp: { policies: [{ type: 'Pods', value: 4, periodSeconds: 60 }] } });

  it('records the change in its direction', () => {
    const up = recordScaleEvent({ scaleUp: [], scaleDown: [] }, behavior, 3, 7, NOW_MS);
    expect(up).toEqual({ scaleUp: [{ replicaChange: 4, atMs: NOW_MS }], scaleDown: [] });
    const down = recordScaleEvent(up, behavior, 7, 5, NOW_MS);
    expect(down.scaleDown).toEqual([{ replicaChange: 2, atMs: NOW_MS }]);
  });

  it('reuses the slot of an event older than the longest period', () => {
    const old = {
      scaleUp: agedEvents([
        { replicaChange: 1, ageSeconds: 61 },
        { replicaChange: 2, ageSeconds: 30 },
      ]),
      scaleDown: [],
    };
    const next = recordScaleEvent(old, behavior, 3, 4, NOW_MS);
    expect(next.scaleUp).toEqual([{ replicaChange: 1, atMs: NOW_MS }, old.scaleUp[1]]);
    expect(old.scaleUp[0]!.atMs).toBe(NOW_MS - 61_000);
  });
});
