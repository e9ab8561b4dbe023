import { SimulationSpecError } from './errors.js';

/**
 * Kubernetes' HorizontalPodAutoscaler (autoscaling/v2) as the simulated cluster's controller-manager runs it, for
 * the one metric the simulator produces: CPU Utilization. The math follows `replica_calculator.go` and
 * `horizontal.go` of kube-controller-manager with behavior unset (see the crane-ehpa reference, section 7).
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
  if (typeof ref?.kind !== 'string' || typeof ref.name !== 'string') throw new SimulationSpecError(`${path}.scaleTargetRef`, 'kind and name are required');
  const int = (v: unknown, p: string, min: number) => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min) throw new SimulationSpecError(p, `expected an integer >= ${min}, got ${JSON.stringify(v)}`);
    return v;
  };
  const minReplicas = s.minReplicas === undefined ? 1 : int(s.minReplicas, `${path}.minReplicas`, 0);
  const maxReplicas = int(s.maxReplicas, `${path}.maxReplicas`, 1);
  if (maxReplicas < minReplicas) throw new SimulationSpecError(`${path}.maxReplicas`, `must be >= minReplicas (${minReplicas}), got ${maxReplicas}`);
  let targetUtilization = DEFAULT_TARGET_UTILIZATION;
  const metrics = (s.metrics as unknown[] | undefined) ?? [];
  if (metrics.length > 0) {
    const i = metrics.findIndex((m) => {
      const r = (m as { type?: string; resource?: { name?: string; target?: { type?: string } } } | null) ?? {};
      return r.type === 'Resource' && r.resource?.name === 'cpu' && r.resource.target?.type === 'Utilization';
    });
    if (i < 0) throw new SimulationSpecError(`${path}.metrics`, 'the simulator supports only a Resource metric on cpu with a Utilization target');
    const t = (metrics[i] as { resource: { target: { averageUtilization?: unknown } } }).resource.target.averageUtilization;
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

export const HPA_TOLERANCE = 0.1;

/** `GetResourceUtilizationRatio`: utilization is an integer percentage, truncated, of usage over requests. */
function utilizationRatio(usageMilli: number, requestMilliTotal: number, target: number): { ratio: number; utilization: number } {
  const utilization = Math.trunc((usageMilli * 100) / requestMilliTotal);
  return { ratio: utilization / target, utilization };
}

/**
 * The replica calculator for a Resource Utilization metric (`GetResourceReplicas`). Returns undefined when there is
 * no usable metric (no ready pod, no cpu request): the HPA then leaves the scale alone, as Kubernetes does on
 * `FailedGetResourceMetric`. The simulator has no pods without metrics, so the "missing pods" branch never runs.
 */
export function proposeReplicas(current: number, sample: CpuSample, target: number, tolerance = HPA_TOLERANCE): { replicas: number; utilization: number } | undefined {
  if (sample.readyPods <= 0 || sample.requestMilli <= 0) return undefined;
  const { ratio, utilization } = utilizationRatio(sample.usageMilli, sample.readyPods * sample.requestMilli, target);
  const rebalanceIgnored = sample.pendingPods > 0 && ratio > 1;
  if (!rebalanceIgnored) {
    if (Math.abs(1 - ratio) <= tolerance) return { replicas: current, utilization };
    return { replicas: Math.ceil(ratio * sample.readyPods), utilization };
  }
  // Scaling up with Pending pods: they count as using nothing, so pods that have not started yet damp the scale-up.
  const pods = sample.readyPods + sample.pendingPods;
  const { ratio: newRatio } = utilizationRatio(sample.usageMilli, pods * sample.requestMilli, target);
  if (Math.abs(1 - newRatio) <= tolerance || newRatio < 1) return { replicas: current, utilization };
  const replicas = Math.ceil(newRatio * pods);
  return { replicas: replicas < current ? current : replicas, utilization };
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

export const DEFAULT_DOWNSCALE_STABILIZATION_MS = 300_000;
const SCALE_UP_LIMIT_FACTOR = 2;
const SCALE_UP_LIMIT_MINIMUM = 4;

/** A new HPA adopts the workload's current replicas and records them as its first recommendation. */
export function initialHpaState(replicas: number, nowMs: number): HpaState {
  return { replicas, recommendations: [{ replicas, atMs: nowMs }] };
}

/**
 * One `reconcileAutoscaler` pass. Pure: returns the next state, whose `replicas` is the new scale.
 * 1. Scaling disabled at 0 replicas when minReplicas is not 0; out-of-range replicas are clamped without metrics.
 * 2. Otherwise the metric proposal is stabilised (the highest recommendation of the downscale window wins) and
 *    limited to [minReplicas, min(maxReplicas, max(2 × current, 4))].
 */
export function reconcileHpa(spec: HpaSpec, state: HpaState, sample: CpuSample, nowMs: number, opts: HpaOptions = {}): HpaState {
  const current = state.replicas;
  const next: HpaState = { ...state, lastSyncMs: nowMs, recommendations: [...state.recommendations] };
  if (current === 0 && spec.minReplicas !== 0) return next;
  if (current > spec.maxReplicas) return { ...next, replicas: spec.maxReplicas };
  if (current < spec.minReplicas) return { ...next, replicas: spec.minReplicas };
  const proposal = proposeReplicas(current, sample, spec.targetUtilization, opts.tolerance ?? HPA_TOLERANCE);
  if (!proposal) return next;
  next.utilization = proposal.utilization;
  const stabilized = stabilize(next.recommendations, proposal.replicas, nowMs, opts.downscaleStabilizationMs ?? DEFAULT_DOWNSCALE_STABILIZATION_MS);
  const upper = Math.min(spec.maxReplicas, Math.max(SCALE_UP_LIMIT_FACTOR * current, SCALE_UP_LIMIT_MINIMUM));
  next.replicas = Math.max(spec.minReplicas, Math.min(upper, stabilized));
  return next;
}

/** `stabilizeRecommendation`: mutates `recs` the way Kubernetes does (one stale slot is reused, else appended). */
function stabilize(recs: HpaState['recommendations'], proposal: number, nowMs: number, windowMs: number): number {
  const cutoff = nowMs - windowMs;
  let max = proposal;
  let stale = -1;
  recs.forEach((r, i) => {
    if (r.atMs < cutoff) stale = i;
    else if (r.replicas > max) max = r.replicas;
  });
  if (stale >= 0) recs[stale] = { replicas: proposal, atMs: nowMs };
  else recs.push({ replicas: proposal, atMs: nowMs });
  return max;
}
