import { MetricComputationError } from './errors.js';
import { groupPods, runningReadyCount, type PodSample, type PodState } from './group-pods.js';

/** `--horizontal-pod-autoscaler-tolerance`: ratios within 10 % of 1 keep the current replicas. */
export const DEFAULT_TOLERANCE = 0.1;

/**
 * Options every calculation shares. `calibration` is Karmada's FederatedHPA factor (member replicas over template
 * replicas, see calibration.ts); 1 is plain Kubernetes, and dividing by 1 leaves every result bit-identical.
 */
export interface CalculatorOptions {
  tolerance?: number;
  calibration?: number;
}

export interface PodMetricInput extends CalculatorOptions {
  /** The scale target's `spec.replicas`. */
  currentReplicas: number;
  pods: readonly PodSample[];
}

export interface UtilizationProposal {
  replicas: number;
  /** Truncated percentage of usage over requests, over the pods with a sample. */
  utilization: number;
  /** Truncated mean usage of those pods, in milli-units. */
  rawAverageValue: number;
}

export interface AverageValueProposal {
  replicas: number;
  /** Truncated mean sample of the counted pods, in milli-units. */
  averageValue: number;
}

export interface ValueProposal {
  replicas: number;
  value: number;
}

const withinTolerance = (ratio: number, tolerance: number) => Math.abs(1 - ratio) <= tolerance;

interface RatioOf {
  /** Usage ratio over a set of pod samples (pod index -> value). */
  (samples: ReadonlyMap<number, number>): number;
}

/**
 * The shared second half of `GetResourceReplicas` / `calcPlainMetricReplicas`: with no unready pods to re-add and no
 * missing pods, `ceil(ratio × ready)`; otherwise missing pods are assumed at `missingOnScaleDown` (their request, or
 * the target) when scaling down and at 0 when scaling up, unready pods at 0 when scaling up, and the ratio is taken
 * again. The damped result never moves against the direction of the new ratio.
 */
function podMetricReplicas(
  input: PodMetricInput,
  groups: ReturnType<typeof groupPods>,
  ratioOf: RatioOf,
  missingOnScaleDown: (podIndex: number) => number,
): number {
  const tolerance = input.tolerance ?? DEFAULT_TOLERANCE;
  const calibration = input.calibration ?? 1;
  const ratio = ratioOf(groups.samples);
  const scaleUpWithUnready = groups.unready.length > 0 && ratio > 1;
  if (!scaleUpWithUnready && groups.missing.length === 0) {
    if (withinTolerance(ratio, tolerance)) return input.currentReplicas;
    return Math.ceil((ratio * groups.readyCount) / calibration);
  }
  const samples = new Map(groups.samples);
  for (const i of groups.missing) {
    if (ratio < 1) samples.set(i, missingOnScaleDown(i));
    else if (ratio > 1) samples.set(i, 0);
  }
  if (scaleUpWithUnready) for (const i of groups.unready) samples.set(i, 0);
  const newRatio = ratioOf(samples);
  const flipped = (ratio < 1 && newRatio > 1) || (ratio > 1 && newRatio < 1);
  if (withinTolerance(newRatio, tolerance) || flipped) return input.currentReplicas;
  const replicas = Math.ceil((newRatio * samples.size) / calibration);
  if ((newRatio < 1 && replicas > input.currentReplicas) || (newRatio > 1 && replicas < input.currentReplicas)) {
    return input.currentReplicas;
  }
  return replicas;
}

function requireSamples(groups: ReturnType<typeof groupPods>, pods: readonly PodSample[]): void {
  if (pods.every((p) => p.valueMilli === null)) {
    throw new MetricComputationError('NoMetrics', 'no metrics returned from resource metrics API', 'pods');
  }
  if (groups.samples.size === 0) {
    throw new MetricComputationError(
      'NoUsableMetrics',
      'did not receive metrics for targeted pods (pods might be unready)',
      'pods',
    );
  }
}

/**
 * Kubernetes' `GetResourceReplicas`: a Resource metric with a Utilization target (percent of the pods' requests).
 * Every pod that is not failed or deleting must carry a request, as `calculateRequests` demands.
 */
export function resourceUtilizationReplicas(
  input: PodMetricInput & { resource: string; targetUtilization: number },
): UtilizationProposal {
  const { pods, resource, targetUtilization } = input;
  if (!(targetUtilization > 0)) {
    throw new MetricComputationError(
      'InvalidTarget',
      `expected a positive utilization, got ${targetUtilization}`,
      'targetUtilization',
    );
  }
  pods.forEach((p, i) => {
    if (p.requestMilli === undefined) {
      throw new MetricComputationError('MissingRequest', `missing request for ${resource}`, `pods[${i}].requestMilli`);
    }
  });
  const groups = groupPods(pods, resource === 'cpu');
  requireSamples(groups, pods);
  const requestOf = (i: number) => pods[i]!.requestMilli!;
  const utilizationOf = (samples: ReadonlyMap<number, number>) => {
    let usage = 0;
    let requests = 0;
    for (const [i, v] of samples) {
      usage += v;
      requests += requestOf(i);
    }
    if (requests === 0) {
      throw new MetricComputationError('NoUsableMetrics', 'no metrics returned matched known pods', 'pods');
    }
    return { utilization: Math.trunc((usage * 100) / requests), rawAverageValue: Math.trunc(usage / samples.size) };
  };
  const first = utilizationOf(groups.samples);
  // Missing pods are assumed busy (at their request, or at the target when that is above 100 %) so that a gap in
  // the metrics never drives a scale-down on its own.
  const fallbackPercent = Math.max(100, targetUtilization);
  const replicas = podMetricReplicas(
    input,
    groups,
    (samples) => utilizationOf(samples).utilization / targetUtilization,
    (i) => Math.trunc((requestOf(i) * fallbackPercent) / 100),
  );
  return { replicas, ...first };
}

/**
 * Kubernetes' `calcPlainMetricReplicas`, behind `GetRawResourceReplicas` (Resource with an AverageValue target) and
 * `GetMetricReplicas` (a Pods metric). `checkCpuReadiness` is true only for the cpu resource.
 */
export function averageValueReplicas(
  input: PodMetricInput & { targetAverageValueMilli: number; checkCpuReadiness?: boolean },
): AverageValueProposal {
  const { pods, targetAverageValueMilli: target } = input;
  if (!(target > 0)) {
    throw new MetricComputationError(
      'InvalidTarget',
      `expected a positive average value, got ${target}`,
      'targetAverageValueMilli',
    );
  }
  const groups = groupPods(pods, input.checkCpuReadiness ?? false);
  requireSamples(groups, pods);
  const averageOf = (samples: ReadonlyMap<number, number>) => {
    let total = 0;
    for (const v of samples.values()) total += v;
    return Math.trunc(total / samples.size);
  };
  const replicas = podMetricReplicas(
    input,
    groups,
    (samples) => averageOf(samples) / target,
    () => target,
  );
  return { replicas, averageValue: averageOf(groups.samples) };
}

export interface ValueInput extends CalculatorOptions {
  currentReplicas: number;
  /** The states of the target's pods: only Running and Ready ones multiply the ratio. */
  podStates: readonly PodState[];
  /** The object's value, or the sum of all external series, in milli-units. */
  valueMilli: number;
  targetValueMilli: number;
}

/**
 * Kubernetes' `GetObjectMetricReplicas` and `GetExternalMetricReplicas` (Value targets), both through
 * `getUsageRatioReplicaCount`: the ratio multiplies the Running-and-Ready pods, not `spec.replicas`.
 */
export function valueReplicas(input: ValueInput): ValueProposal {
  const { currentReplicas, valueMilli, targetValueMilli } = input;
  if (!(targetValueMilli > 0)) {
    throw new MetricComputationError(
      'InvalidTarget',
      `expected a positive value, got ${targetValueMilli}`,
      'targetValueMilli',
    );
  }
  const ratio = valueMilli / targetValueMilli;
  const calibration = input.calibration ?? 1;
  if (currentReplicas === 0) return { replicas: Math.ceil(ratio), value: valueMilli };
  if (withinTolerance(ratio, input.tolerance ?? DEFAULT_TOLERANCE))
    return { replicas: currentReplicas, value: valueMilli };
  if (input.podStates.length === 0) {
    throw new MetricComputationError(
      'NoPods',
      'no pods returned by selector while calculating replica count',
      'podStates',
    );
  }
  return { replicas: Math.ceil((ratio * runningReadyCount(input.podStates)) / calibration), value: valueMilli };
}

export interface AverageOfTotalInput {
  tolerance?: number;
  /** The scale target's `status.replicas` (running pods), which the total is spread over. */
  statusReplicas: number;
  totalMilli: number;
  targetAverageValueMilli: number;
}

/**
 * Kubernetes' `GetObjectPerPodMetricReplicas` and `GetExternalPerPodMetricReplicas` (AverageValue targets): the total
 * over `target × status.replicas`; past the tolerance the proposal is `ceil(total / target)`, which needs no pod
 * count at all. This is how Crane's prediction and cron metrics reach the HPA.
 */
export function averageOfTotalReplicas(input: AverageOfTotalInput): AverageValueProposal {
  const { statusReplicas, totalMilli, targetAverageValueMilli: target } = input;
  if (!(target > 0)) {
    throw new MetricComputationError(
      'InvalidTarget',
      `expected a positive average value, got ${target}`,
      'targetAverageValueMilli',
    );
  }
  const ratio = totalMilli / (target * statusReplicas);
  const replicas = withinTolerance(ratio, input.tolerance ?? DEFAULT_TOLERANCE)
    ? statusReplicas
    : Math.ceil(totalMilli / target);
  return { replicas, averageValue: statusReplicas > 0 ? Math.ceil(totalMilli / statusReplicas) : totalMilli };
}
