import {
  DEFAULT_DOWNSCALE_STABILIZATION_SECONDS,
  DEFAULT_TOLERANCE,
  equalSharePods,
  MetricComputationError,
  reconcileAutoscaler,
  resourceUtilizationReplicas,
  type MetricProposal,
  type PodSample,
  type UtilizationProposal,
} from '@flotilla/hpa-math';
import { SimulationSpecError } from './errors.js';

/**
 * Kubernetes' HorizontalPodAutoscaler (autoscaling/v2) as the simulated cluster's controller-manager runs it, for
 * the one metric the simulator produces: CPU Utilization, with behavior unset. The math is @flotilla/hpa-math's
 * (Kubernetes' `replica_calculator.go` and `horizontal.go`); this file adapts the simulator's aggregate CPU sample
 * and its per-HPA state to it.
 */
export interface HpaSpec {
  minReplicas: number;
  maxReplicas: number;
  /** `metrics[].resource.target.averageUtilization` for cpu, in percent of the pods' requests. */
  targetUtilization: number;
}

export interface HpaTarget {
  kind: string;
  name: string;
}

/** The HPA's default metric when `spec.metrics` is empty (autoscaling/v2 defaulting). */
export const DEFAULT_TARGET_UTILIZATION = 80;

/** Reads an autoscaling/v2 HorizontalPodAutoscaler's spec; only a cpu Utilization metric drives the simulation. */
export function parseHpaSpec(raw: unknown, path = 'spec'): { target: HpaTarget; spec: HpaSpec } {
  if (typeof raw !== 'object' || raw === null) throw new SimulationSpecError(path, 'expected an object');
  const s = raw as Record<string, unknown>;
  const ref = s.scaleTargetRef as Record<string, unknown> | undefined;
  if (typeof ref?.kind !== 'string' || typeof ref.name !== 'string')
    throw new SimulationSpecError(`${path}.scaleTargetRef`, 'kind and name are required');
  const int = (v: unknown, p: string, min: number) => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min)
      throw new SimulationSpecError(p, `expected an integer >= ${min}, got ${JSON.stringify(v)}`);
    return v;
  };
  const minReplicas = s.minReplicas === undefined ? 1 : int(s.minReplicas, `${path}.minReplicas`, 0);
  const maxReplicas = int(s.maxReplicas, `${path}.maxReplicas`, 1);
  if (maxReplicas < minReplicas)
    throw new SimulationSpecError(`${path}.maxReplicas`, `must be >= minReplicas (${minReplicas}), got ${maxReplicas}`);
  let targetUtilization = DEFAULT_TARGET_UTILIZATION;
  const metrics = (s.metrics as unknown[] | undefined) ?? [];
  if (metrics.length > 0) {
    const i = metrics.findIndex((m) => {
      const r = (m as { type?: string; resource?: { name?: string; target?: { type?: string } } } | null) ?? {};
      return r.type === 'Resource' && r.resource?.name === 'cpu' && r.resource.target?.type === 'Utilization';
    });
    if (i < 0)
      throw new SimulationSpecError(
        `${path}.metrics`,
        'the simulator supports only a Resource metric on cpu with a Utilization target',
      );
    const t = (metrics[i] as { resource: { target: { averageUtilization?: unknown } } }).resource.target
      .averageUtilization;
    targetUtilization = int(t, `${path}.metrics[${i}].resource.target.averageUtilization`, 1);
  }
  return { target: { kind: ref.kind, name: ref.name }, spec: { minReplicas, maxReplicas, targetUtilization } };
}

export interface CpuSample {
  /** Pods running and ready: their usage is the metric. */
  readyPods: number;
  /** Pods not running yet (Pending): "ignored" by the HPA. */
  pendingPods: number;
  /** Total CPU used by the ready pods, in millicores. */
  usageMilli: number;
  /** CPU request of one pod, in millicores. */
  requestMilli: number;
}

export const HPA_TOLERANCE = DEFAULT_TOLERANCE;

/** The simulator knows only the total usage of the ready pods; the calculator wants one sample per pod. */
function podsOf(sample: CpuSample): PodSample[] {
  return equalSharePods(sample.readyPods, sample.pendingPods, sample.usageMilli, sample.requestMilli);
}

function cpuUtilization(
  current: number,
  sample: CpuSample,
  target: number,
  tolerance: number,
): UtilizationProposal | MetricComputationError {
  try {
    return resourceUtilizationReplicas({
      currentReplicas: current,
      pods: podsOf(sample),
      resource: 'cpu',
      targetUtilization: target,
      tolerance,
    });
  } catch (err) {
    if (err instanceof MetricComputationError) return err;
    throw err;
  }
}

/**
 * The replica calculator for a Resource Utilization metric (`GetResourceReplicas`). Returns undefined when there is
 * no usable metric (no ready pod, no cpu request): the HPA then leaves the scale alone, as Kubernetes does on
 * `FailedGetResourceMetric`. The simulator has no pods without metrics, so the "missing pods" branch never runs.
 */
export function proposeReplicas(
  current: number,
  sample: CpuSample,
  target: number,
  tolerance = HPA_TOLERANCE,
): { replicas: number; utilization: number } | undefined {
  const out = cpuUtilization(current, sample, target, tolerance);
  return out instanceof MetricComputationError ? undefined : { replicas: out.replicas, utilization: out.utilization };
}

export interface HpaState {
  /** The scale's `spec.replicas` in this cluster, as the HPA last set it. */
  replicas: number;
  lastSyncMs?: number;
  recommendations: Array<{ replicas: number; atMs: number }>;
  /** Last computed utilization, for the workload status. */
  utilization?: number;
}

export interface HpaOptions {
  tolerance?: number;
  /** `--horizontal-pod-autoscaler-downscale-stabilization` (default 5 minutes). */
  downscaleStabilizationMs?: number;
}

export const DEFAULT_DOWNSCALE_STABILIZATION_MS = DEFAULT_DOWNSCALE_STABILIZATION_SECONDS * 1000;

/** A new HPA adopts the workload's current replicas and records them as its first recommendation. */
export function initialHpaState(replicas: number, nowMs: number): HpaState {
  return { replicas, recommendations: [{ replicas, atMs: nowMs }] };
}

/**
 * One `reconcileAutoscaler` pass. Pure: returns the next state, whose `replicas` is the new scale.
 * Scaling is disabled at 0 replicas when minReplicas is not 0; out-of-range replicas are clamped without metrics;
 * otherwise the cpu proposal is stabilised over the downscale window and limited to
 * [minReplicas, min(maxReplicas, max(2 × current, 4))].
 */
export function reconcileHpa(
  spec: HpaSpec,
  state: HpaState,
  sample: CpuSample,
  nowMs: number,
  opts: HpaOptions = {},
): HpaState {
  const cpu = cpuUtilization(state.replicas, sample, spec.targetUtilization, opts.tolerance ?? HPA_TOLERANCE);
  const proposal: MetricProposal =
    cpu instanceof MetricComputationError
      ? { metric: 'cpu resource', error: cpu, reason: 'FailedGetResourceMetric' }
      : { metric: 'cpu resource', replicas: cpu.replicas };
  const out = reconcileAutoscaler({
    specReplicas: state.replicas,
    minReplicas: spec.minReplicas,
    maxReplicas: spec.maxReplicas,
    proposals: [proposal],
    history: { recommendations: state.recommendations, scaleEvents: { scaleUp: [], scaleDown: [] } },
    nowMs,
    downscaleStabilizationWindowSeconds: (opts.downscaleStabilizationMs ?? DEFAULT_DOWNSCALE_STABILIZATION_MS) / 1000,
  });
  const next: HpaState = {
    ...state,
    replicas: out.desiredReplicas,
    lastSyncMs: nowMs,
    recommendations: out.history.recommendations ?? [],
  };
  // The utilization is reported only when the metric was looked at (replicas within [min, max]).
  if (out.metricReplicas !== undefined && !(cpu instanceof MetricComputationError)) next.utilization = cpu.utilization;
  return next;
}
