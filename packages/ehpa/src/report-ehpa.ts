import type { EffectiveHorizontalPodAutoscaler } from '@flotilla/api';
import { reactiveCounterpart, replayEhpa, type ReplayRun } from './replay.js';
import type { HistorySample } from './what-if-ehpa.js';

/**
 * The EffectiveHPA the report replays when none is given: CPU at 50 % of a 1-core request, a half-hour prediction
 * window (the forecast's FFT smoothing already leads a sharp rise) with Crane's default DSP estimators over 3 days of
 * 1-minute history, and a cron that holds capacity for the start of the working day (Monday to Friday 07:50–08:30).
 */
export function defaultReportEhpa(): EffectiveHorizontalPodAutoscaler {
  return {
    apiVersion: 'autoscaling.crane.io/v1alpha1',
    kind: 'EffectiveHorizontalPodAutoscaler',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 2,
      maxReplicas: 80,
      scaleStrategy: 'Auto',
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
      ],
      prediction: {
        predictionWindowSeconds: 1800,
        predictionAlgorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '3d' } },
      },
      crons: [
        { name: 'workday-start', timezone: 'UTC', start: '50 7 * * 1-5', end: '30 8 * * 1-5', targetReplicas: 30 },
      ],
    },
  };
}

export interface EhpaReport {
  startSeconds: number;
  endSeconds: number;
  effective: ReplayRun;
  reactive: ReplayRun;
}

/** Replays one trace twice: with the EffectiveHPA, and with a plain reactive HPA of the same target and metrics. */
export function runEhpaReport(input: {
  trace: readonly HistorySample[];
  startSeconds: number;
  ehpa?: EffectiveHorizontalPodAutoscaler;
  requestMilli?: number;
  podStartupSeconds?: number;
}): EhpaReport {
  const ehpa = input.ehpa ?? defaultReportEhpa();
  const common = {
    trace: input.trace,
    startSeconds: input.startSeconds,
    requestMilli: input.requestMilli ?? 1000,
    ...(input.podStartupSeconds === undefined ? {} : { podStartupSeconds: input.podStartupSeconds }),
  };
  return {
    startSeconds: input.startSeconds,
    endSeconds: input.trace[input.trace.length - 1]![0],
    effective: replayEhpa({ ...common, ehpa }),
    reactive: replayEhpa({ ...common, ehpa: reactiveCounterpart(ehpa) }),
  };
}
