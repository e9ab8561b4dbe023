import type { EffectiveHorizontalPodAutoscaler, EffectiveHorizontalPodAutoscalerSpec } from '@flotilla/api';
import type { MemberWorkload } from '@flotilla/hpa-math';
import { describe, expect, it } from 'vitest';
import { decideEffectiveHpa, type EhpaDecisionInput } from './decide-effective-hpa.js';
import { memberWorkload } from './member-usage.js';
import type { Forecast } from './prediction-proposal.js';

const NOW = new Date('2026-03-02T10:00:00Z');
const nowS = NOW.getTime() / 1000;

function ehpa(spec: Partial<EffectiveHorizontalPodAutoscalerSpec>): EffectiveHorizontalPodAutoscaler {
  return {
    apiVersion: 'autoscaling.crane.io/v1alpha1',
    kind: 'EffectiveHorizontalPodAutoscaler',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 1,
      maxReplicas: 20,
      scaleStrategy: 'Auto',
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
      ],
      prediction: {
        predictionWindowSeconds: 3600,
        predictionAlgorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '3d' } },
      },
      ...spec,
    },
  };
}

/** Crane's worked example: 4 ready pods requesting 1000m each, using 900m, 800m, 1000m and 700m. */
const cranePods: MemberWorkload = {
  cluster: 'm1',
  clusterReady: true,
  specReplicas: 4,
  statusReplicas: 4,
  pods: [900, 800, 1000, 700].map((v) => ({ state: 'ready' as const, requestMilli: 1000, valueMilli: v })),
};

const forecast = (peak: number): Forecast => ({
  samples: [
    [nowS - 60, peak + 5],
    [nowS + 600, peak - 1],
    [nowS + 1800, peak],
    [nowS + 3600, peak - 0.5],
    [nowS + 3660, peak + 5],
  ],
  readiness: { ready: true, reason: 'PredictSucceed', message: 'periodic every 86400s' },
});

const alwaysOn = { name: 'peak', start: '0 0 * * *', end: '0 0 * * *', targetReplicas: 10 };

function decide(over: Partial<EhpaDecisionInput> & { spec?: Partial<EffectiveHorizontalPodAutoscalerSpec> }) {
  const { spec, ...rest } = over;
  return decideEffectiveHpa({
    ehpa: ehpa(spec ?? {}),
    template: { specReplicas: 4, statusReplicas: 4 },
    observed: { members: [cranePods] },
    forecast: forecast(3.95),
    now: NOW,
    ...rest,
  });
}

describe("decideEffectiveHpa: Crane's combination of observed, predicted and cron proposals", () => {
  it("Crane's worked example: observed 7, prediction 6, cron 10; the cron wins and the 2x/+4 limit gives 8", () => {
    const d = decide({ spec: { crons: [alwaysOn] } });
    expect(d.statusPatch.proposals).toEqual({
      observed: { replicas: 7, detail: 'cpu resource' },
      prediction: { replicas: 6, metricValue: 3, detail: expect.stringContaining('500m per pod') },
      cron: { replicas: 10, metricValue: 10, detail: 'active: peak' },
    });
    expect([d.desiredReplicas, d.scaleTo, d.winningSource]).toEqual([8, 8, 'cron']);
    expect(d.statusPatch.conditions).toContainEqual(
      expect.objectContaining({ type: 'ScalingLimited', reason: 'ScaleUpLimit' }),
    );
    expect(d.events).toEqual([
      expect.objectContaining({ type: 'EffectiveHpaScaled', source: 'cron', fromReplicas: 4, toReplicas: 8 }),
    ]);
    expect(d.statusPatch).toMatchObject({
      expectReplicas: 8,
      currentReplicas: 4,
      lastScaleTime: '2026-03-02T10:00:00Z',
    });
    expect(d.statusPatch.predictionWindowMax).toBeCloseTo(3.95, 5);
    expect(d.statusPatch.activeCrons).toEqual([{ name: 'peak', targetReplicas: 10 }]);
  });

  it('the window maximum, not the next sample, drives the prediction; it wins over a lower observed proposal', () => {
    // 9.5 cores truncated to 9 by the adapter, against 500m per pod: 18
    const d = decide({
      forecast: forecast(9.5),
      template: { specReplicas: 10, statusReplicas: 10 },
      observed: {
        members: [
          memberWorkload({
            cluster: 'm1',
            clusterReady: true,
            specReplicas: 10,
            readyReplicas: 10,
            usageMilli: 5000,
            requestMilli: 1000,
          }),
        ],
      },
    });
    expect(d.proposals.map((p) => ('replicas' in p ? p.replicas : p.reason))).toEqual([10, 18]);
    expect([d.desiredReplicas, d.winningSource]).toEqual([18, 'prediction']);
  });

  it('the largest proposal is clamped to maxReplicas (TooManyReplicas)', () => {
    const d = decide({
      spec: { crons: [{ ...alwaysOn, targetReplicas: 30 }] },
      template: { specReplicas: 12, statusReplicas: 12 },
      observed: {
        members: [
          memberWorkload({
            cluster: 'm1',
            clusterReady: true,
            specReplicas: 12,
            readyReplicas: 12,
            usageMilli: 6000,
            requestMilli: 1000,
          }),
        ],
      },
    });
    expect([d.desiredReplicas, d.winningSource]).toEqual([20, 'cron']);
    expect(d.statusPatch.conditions).toContainEqual(
      expect.objectContaining({ type: 'ScalingLimited', reason: 'TooManyReplicas' }),
    );
  });

  it('equal proposals: the observed metrics are named the winner (Kubernetes keeps the first maximum)', () => {
    const d = decide({
      spec: { prediction: undefined, crons: [{ ...alwaysOn, targetReplicas: 7 }] },
      forecast: undefined,
    });
    expect(d.proposals.filter((p) => 'replicas' in p).map((p) => [p.source, 'replicas' in p && p.replicas])).toEqual([
      ['observed', 7],
      ['cron', 7],
    ]);
    expect(d.winningSource).toBe('observed');
  });

  it('behavior rate limits apply to the winning proposal (scaleUp 1 pod per minute)', () => {
    const d = decide({
      spec: {
        crons: [alwaysOn],
        behavior: {
          scaleUp: { stabilizationWindowSeconds: 0, policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] },
        },
      },
    });
    expect([d.desiredReplicas, d.winningSource]).toEqual([5, 'cron']);
    expect(d.history.scaleEvents.scaleUp).toHaveLength(1);
  });

  it('scale-down stabilization: a recommendation of 10 within the 5-minute window holds the replicas', () => {
    const idle = memberWorkload({
      cluster: 'm1',
      clusterReady: true,
      specReplicas: 10,
      readyReplicas: 10,
      usageMilli: 1000,
      requestMilli: 1000,
    });
    const base = {
      template: { specReplicas: 10, statusReplicas: 10 },
      observed: { members: [idle] },
      forecast: forecast(1.2),
    };
    const held = decide({
      ...base,
      history: {
        recommendations: [{ replicas: 10, atMs: NOW.getTime() - 60_000 }],
        scaleEvents: { scaleUp: [], scaleDown: [] },
      },
    });
    expect([held.desiredReplicas, held.scaleTo]).toEqual([10, undefined]);
    const later = decide({
      ...base,
      history: {
        recommendations: [{ replicas: 10, atMs: NOW.getTime() - 301_000 }],
        scaleEvents: { scaleUp: [], scaleDown: [] },
      },
    });
    // observed: 10 % of the request against 50 % -> 2; prediction: 1 core (1.2 truncated) against 500m -> 2
    expect([later.desiredReplicas, later.scaleTo]).toEqual([2, 2]);
  });

  it('a prediction that is not ready falls back to the other sources and says why', () => {
    const d = decide({
      spec: { crons: [{ ...alwaysOn, targetReplicas: 5 }] },
      forecast: {
        samples: [],
        readiness: {
          ready: false,
          reason: 'NotEnoughHistory',
          message: '20h of contiguous history, a daily pattern needs at least 48h',
        },
      },
    });
    expect(d.statusPatch.proposals.prediction).toEqual({
      reason: 'NotEnoughHistory',
      message: expect.stringContaining('48h'),
    });
    expect(d.statusPatch.conditions).toContainEqual(
      expect.objectContaining({ type: 'PredictionReady', status: 'False', reason: 'NotEnoughHistory' }),
    );
    expect([d.desiredReplicas, d.winningSource]).toEqual([7, 'observed']);
  });

  it('a forecast without a positive sample in the window is outdated, not a proposal of zero', () => {
    const d = decide({
      forecast: { samples: [[nowS - 60, 4]], readiness: { ready: true, reason: 'PredictSucceed', message: '' } },
    });
    expect(d.statusPatch.proposals.prediction).toMatchObject({ reason: 'OutdatedTimeSeries' });
    expect(d.desiredReplicas).toBe(7);
  });

  it('no metrics from the members: the cron still scales up; alone it cannot scale down (Kubernetes 1.21+)', () => {
    const lost = { members: [{ ...cranePods, clusterReady: false }] };
    const up = decide({
      observed: lost,
      forecast: undefined,
      spec: { prediction: undefined, crons: [{ ...alwaysOn, targetReplicas: 6 }] },
    });
    expect(up.statusPatch.proposals.observed).toMatchObject({ reason: 'FailedGetResourceMetric' });
    expect([up.desiredReplicas, up.winningSource]).toEqual([6, 'cron']);
    const down = decide({
      observed: lost,
      forecast: undefined,
      spec: { prediction: undefined, crons: [{ ...alwaysOn, targetReplicas: 2 }] },
    });
    expect([down.desiredReplicas, down.scaleTo]).toEqual([4, undefined]);
    expect(down.statusPatch.conditions).toContainEqual(
      expect.objectContaining({ type: 'ScalingActive', status: 'False' }),
    );
  });

  it.each<[title: string, running: number, target: number, expected: number]>([
    // gocrane/crane#836: Crane's AverageValue-1 metric gives 24/22 = 1.09, inside the 10 % tolerance, and stays at 22
    ['22 -> 24, inside the HPA tolerance band where Crane never moves', 22, 24, 24],
    ['20 -> 21, a 5 % step', 20, 21, 21],
    ['10 -> 10, already there: no write', 10, 10, 10],
    ['3 -> 5, outside the band as in Crane', 3, 5, 5],
  ])(
    'a cron window lands on exactly its targetReplicas (Flotilla, not Crane): %s',
    (_title, running, target, expected) => {
      const d = decide({
        template: { specReplicas: running, statusReplicas: running },
        observed: { members: [] },
        forecast: undefined,
        spec: { metrics: [], prediction: undefined, maxReplicas: 50, crons: [{ ...alwaysOn, targetReplicas: target }] },
      });
      expect([d.desiredReplicas, d.winningSource]).toEqual([expected, 'cron']);
      expect(d.scaleTo).toBe(expected === running ? undefined : expected);
      expect(d.statusPatch.proposals.cron).toMatchObject({ replicas: target, metricValue: target });
    },
  );

  it('a cron window is a floor, not a pin: observed load above it wins, with the tolerance only on the observed metric', () => {
    const d = decide({
      template: { specReplicas: 4, statusReplicas: 4 },
      forecast: undefined,
      spec: { prediction: undefined, crons: [{ ...alwaysOn, targetReplicas: 5 }] },
    });
    // the observed 7 of Crane's worked example beats the window's 5
    expect([d.desiredReplicas, d.winningSource]).toEqual([7, 'observed']);
  });

  it('an EffectiveHPA with crons only drifts to minReplicas outside its windows', () => {
    const d = decide({
      spec: {
        metrics: [],
        prediction: undefined,
        minReplicas: 2,
        crons: [{ name: 'night', start: '0 22 * * *', end: '0 23 * * *', targetReplicas: 9 }],
      },
      history: { recommendations: [], scaleEvents: { scaleUp: [], scaleDown: [] } },
    });
    expect(d.statusPatch.activeCrons).toEqual([]);
    expect([d.desiredReplicas, d.winningSource]).toEqual([2, 'cron']);
  });

  it('Preview computes against the running replicas and changes nothing but status', () => {
    const d = decide({ spec: { scaleStrategy: 'Preview', crons: [alwaysOn] } });
    expect([d.desiredReplicas, d.scaleTo, d.events]).toEqual([8, undefined, []]);
    expect(d.statusPatch).toMatchObject({ expectReplicas: 8, currentReplicas: 4 });
    expect(d.statusPatch.lastScaleTime).toBeUndefined();
  });

  it('Preview with specificReplicas pins the template, once', () => {
    const pinned = decide({ spec: { scaleStrategy: 'Preview', specificReplicas: 6, crons: [alwaysOn] } });
    expect([pinned.scaleTo, pinned.statusPatch.expectReplicas, pinned.statusPatch.currentReplicas]).toEqual([6, 8, 6]);
    expect(pinned.events).toEqual([
      expect.objectContaining({ reason: 'SpecificReplicas', source: 'specificReplicas', toReplicas: 6 }),
    ]);
    const again = decide({
      spec: { scaleStrategy: 'Preview', specificReplicas: 6 },
      template: { specReplicas: 6, statusReplicas: 4 },
    });
    expect([again.scaleTo, again.events]).toEqual([undefined, []]);
  });

  it('a target scaled to 0 by hand is left alone (Ready=False/ScalingDisabled)', () => {
    const d = decide({ template: { specReplicas: 0, statusReplicas: 0 }, spec: { crons: [alwaysOn] } });
    expect([d.scaleTo, d.statusPatch.currentReplicas]).toEqual([undefined, 0]);
    expect(d.statusPatch.conditions).toEqual([
      expect.objectContaining({ type: 'Ready', status: 'False', reason: 'ScalingDisabled' }),
    ]);
  });

  it('members are pooled and the proposal calibrated back to template replicas (Duplicated over two clusters)', () => {
    const copy = (cluster: string) =>
      memberWorkload({
        cluster,
        clusterReady: true,
        specReplicas: 4,
        readyReplicas: 4,
        usageMilli: 3400,
        requestMilli: 1000,
      });
    const d = decide({
      spec: { prediction: undefined },
      forecast: undefined,
      observed: { members: [copy('m1'), copy('m2')] },
    });
    // 85% against 50%: ceil(1.7 x 8 pods) = 14 pods, / calibration 2 = 7 template replicas
    expect(d.statusPatch.proposals.observed).toMatchObject({ replicas: 7 });
  });
});
