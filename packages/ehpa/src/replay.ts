import { resolveDspConfig, type EffectiveHorizontalPodAutoscaler } from '@flotilla/api';
import type { AutoscalerHistory } from '@flotilla/hpa-math';
import { DEFAULT_PREDICTION_WINDOW_SECONDS, predict, refitDue, type FittedModel } from '@flotilla/prediction';
import { decideEffectiveHpa } from './decide-effective-hpa.js';
import { WhatIfInputError } from './errors.js';
import { forecastWindow } from './forecast-window.js';
import { memberWorkload } from './member-usage.js';
import type { Forecast } from './prediction-proposal.js';
import type { HistorySample } from './what-if-ehpa.js';

export interface ReplayOptions {
  ehpa: EffectiveHorizontalPodAutoscaler;
  /** Demand in cores, one sample per minute, oldest first: what the workload is asked to serve. */
  trace: readonly HistorySample[];
  /** Unix seconds where the replay starts; the trace before it is the pre-seeded history. */
  startSeconds: number;
  /** One pod's CPU request, milli-cores. */
  requestMilli: number;
  /** How long a new pod takes to become ready (image pull, start-up, readiness probe). */
  podStartupSeconds?: number;
  /** The HPA sync period (Kubernetes' default 15 s). */
  syncSeconds?: number;
}

export interface ReplayPoint {
  t: number;
  load: number;
  replicas: number;
  /** Cores the ready pods can serve: their CPU requests. */
  capacity: number;
}

export interface ReplaySummary {
  /** Minutes in which the demand exceeded what the ready pods can serve (their CPU requests). */
  underProvisionedMinutes: number;
  replicaHours: number;
  replicaChanges: number;
}

export interface ReplayRun {
  points: ReplayPoint[];
  summary: ReplaySummary;
  /** Which source won each scaling decision. */
  wins: Record<string, number>;
}

/** The share of a pod's request the HPA aims for (the first Utilization metric's target; 100 % otherwise). */
function targetShare(ehpa: EffectiveHorizontalPodAutoscaler): number {
  for (const m of ehpa.spec?.metrics ?? []) {
    const u = (m.resource ?? m.containerResource)?.target.averageUtilization;
    if (u !== undefined) return u / 100;
  }
  return 1;
}

/** The same EffectiveHPA without prediction and crons: a plain Kubernetes HPA of the same target and metrics. */
export function reactiveCounterpart(ehpa: EffectiveHorizontalPodAutoscaler): EffectiveHorizontalPodAutoscaler {
  const { prediction: _p, crons: _c, ...spec } = ehpa.spec!;
  return { ...ehpa, spec };
}

/**
 * Replays a demand trace in virtual time through `decideEffectiveHpa`, the controller's own decision: every sync the
 * ready pods report the demand as usage, the forecast is refitted on the history as the controller does (every
 * 12 h), and the decision's `scaleTo` starts pods that become ready after the start-up time (the newest go first on
 * a scale-down). Each minute records demand, replicas and capacity.
 */
export function replayEhpa(opts: ReplayOptions): ReplayRun {
  const sync = opts.syncSeconds ?? 15;
  const startup = opts.podStartupSeconds ?? 180;
  const share = targetShare(opts.ehpa);
  const spec = opts.ehpa.spec!;
  const trace = opts.trace;
  const first = trace.findIndex(([t]) => t >= opts.startSeconds);
  if (first <= 0) throw new WhatIfInputError('trace', 'no samples before the replay start to seed the history with');
  const end = trace[trace.length - 1]![0];
  const config = resolveDspConfig(spec.prediction?.predictionAlgorithm?.dsp).config;
  const window = spec.prediction?.predictionWindowSeconds ?? DEFAULT_PREDICTION_WINDOW_SECONDS;
  const predicting = spec.prediction !== undefined;

  // the index of the sample in force at t: traces are per minute, a sync reads the latest one
  const indexAt = (t: number) => {
    let lo = 0;
    let hi = trace.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (trace[mid]![0] <= t) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const demandAt = (t: number) => trace[indexAt(t)]![1];

  const initial = Math.min(
    spec.maxReplicas,
    Math.max(spec.minReplicas ?? 1, Math.ceil((demandAt(opts.startSeconds) * 1000) / (opts.requestMilli * share))),
  );
  let readyAt: number[] = Array.from({ length: initial }, () => opts.startSeconds);
  let history: AutoscalerHistory | undefined;
  let model: FittedModel | undefined;
  let forecast: Forecast | undefined;
  const points: ReplayPoint[] = [];
  const wins: Record<string, number> = {};
  let changes = 0;
  let under = 0;
  let replicaSeconds = 0;

  for (let t = opts.startSeconds; t <= end; t += sync) {
    if (predicting && refitDue(model, t, window)) {
      const fit = predict(
        trace.slice(0, indexAt(t) + 1).map(([timestamp, value]) => ({ timestamp, value })),
        config,
        { now: t, predictionWindowSeconds: window, horizonSeconds: 86_400 + window },
      );
      forecast = fit;
      model = { fittedAt: t, forecastEnd: fit.samples.length ? fit.samples[fit.samples.length - 1]![0] : undefined };
    }
    const load = demandAt(t);
    const ready = readyAt.filter((r) => r <= t).length;
    const decision = decideEffectiveHpa({
      ehpa: opts.ehpa,
      template: { specReplicas: readyAt.length, statusReplicas: ready },
      observed: {
        members: [
          memberWorkload({
            cluster: 'replay',
            clusterReady: true,
            specReplicas: readyAt.length,
            readyReplicas: ready,
            usageMilli: Math.round(load * 1000),
            requestMilli: opts.requestMilli,
          }),
        ],
      },
      ...(forecast ? { forecast: forecastWindow(forecast, t, window) } : {}),
      now: new Date(t * 1000),
      ...(history ? { history } : {}),
    });
    history = decision.history;
    if (decision.scaleTo !== undefined && decision.scaleTo !== readyAt.length) {
      changes++;
      const source = decision.events[0]?.source ?? 'observed';
      wins[source] = (wins[source] ?? 0) + 1;
      if (decision.scaleTo > readyAt.length) {
        readyAt = [...readyAt, ...Array.from({ length: decision.scaleTo - readyAt.length }, () => t + startup)];
      } else {
        readyAt = readyAt.slice(0, decision.scaleTo);
      }
    }
    replicaSeconds += readyAt.length * sync;
    if ((t - opts.startSeconds) % 60 === 0) {
      const readyNow = readyAt.filter((r) => r <= t).length;
      const capacity = (readyNow * opts.requestMilli) / 1000;
      if (load > capacity) under++;
      points.push({ t, load, replicas: readyAt.length, capacity });
    }
  }
  return {
    points,
    summary: { underProvisionedMinutes: under, replicaHours: replicaSeconds / 3600, replicaChanges: changes },
    wins,
  };
}
