import { parseQuantity, QuantityError, type MetricSpec } from '@flotilla/api';
import { MetricComputationError } from './errors.js';
import type { PodSample, PodState } from './group-pods.js';
import type { MetricProposal } from './reconcile.js';
import {
  averageOfTotalReplicas,
  averageValueReplicas,
  resourceUtilizationReplicas,
  valueReplicas,
  type CalculatorOptions,
} from './replica-calculator.js';

/** What the metrics APIs returned for one metric of the HPA. */
export type MetricObservation =
  /** Resource, ContainerResource and Pods metrics: one sample per pod of the target. */
  | { kind: 'pods'; pods: readonly PodSample[] }
  /** Object and External metrics: the object's value (or the sum of the external series). */
  | { kind: 'total'; totalMilli: number; podStates: readonly PodState[] };

export interface ScaleReplicas extends CalculatorOptions {
  specReplicas: number;
  statusReplicas: number;
}

type Target = NonNullable<MetricSpec['resource']>['target'];

const FAILED_REASON: Record<MetricSpec['type'], string> = {
  Resource: 'FailedGetResourceMetric',
  ContainerResource: 'FailedGetContainerResourceMetric',
  Pods: 'FailedGetPodsMetric',
  Object: 'FailedGetObjectMetric',
  External: 'FailedGetExternalMetric',
};

/** Quantity.MilliValue(): milli-units rounded up (a hair of float noise is not a whole milli-unit). */
function milli(q: Target['value'], field: string): number {
  if (q === undefined) throw new MetricComputationError('InvalidTarget', 'Required value', field);
  return Math.ceil(parseQuantity(q) * 1000 - 1e-6);
}

function describe(spec: MetricSpec): { name: string; target: Target; at: string } {
  switch (spec.type) {
    case 'Resource':
      return { name: `${spec.resource!.name} resource`, target: spec.resource!.target, at: 'resource' };
    case 'ContainerResource':
      return {
        name: `${spec.containerResource!.name} container resource`,
        target: spec.containerResource!.target,
        at: 'containerResource',
      };
    case 'Pods':
      return { name: `pods metric ${spec.pods!.metric.name}`, target: spec.pods!.target, at: 'pods' };
    case 'Object':
      return {
        name: `${spec.object!.describedObject.kind} metric ${spec.object!.metric.name}`,
        target: spec.object!.target,
        at: 'object',
      };
    case 'External':
      return { name: `external metric ${spec.external!.metric.name}`, target: spec.external!.target, at: 'external' };
  }
}

function compute(spec: MetricSpec, obs: MetricObservation, scale: ScaleReplicas): number {
  const { target, at } = describe(spec);
  const opts = { tolerance: scale.tolerance, calibration: scale.calibration };
  const perPod = spec.type === 'Resource' || spec.type === 'ContainerResource' || spec.type === 'Pods';
  if (perPod !== (obs.kind === 'pods')) {
    throw new MetricComputationError(
      'InvalidTarget',
      `a ${spec.type} metric needs a ${perPod ? 'pods' : 'total'} observation`,
      'observation.kind',
    );
  }
  if (obs.kind === 'pods') {
    const resource = spec.resource?.name ?? spec.containerResource?.name;
    if (target.type === 'Utilization' && resource !== undefined) {
      const targetUtilization = target.averageUtilization;
      if (targetUtilization === undefined)
        throw new MetricComputationError('InvalidTarget', 'Required value', `${at}.target.averageUtilization`);
      return resourceUtilizationReplicas({
        currentReplicas: scale.specReplicas,
        pods: obs.pods,
        resource,
        targetUtilization,
        ...opts,
      }).replicas;
    }
    const targetAverageValueMilli = milli(target.averageValue, `${at}.target.averageValue`);
    const checkCpuReadiness = resource === 'cpu';
    return averageValueReplicas({
      currentReplicas: scale.specReplicas,
      pods: obs.pods,
      targetAverageValueMilli,
      checkCpuReadiness,
      ...opts,
    }).replicas;
  }
  if (target.type === 'AverageValue') {
    const targetAverageValueMilli = milli(target.averageValue, `${at}.target.averageValue`);
    return averageOfTotalReplicas({
      statusReplicas: scale.statusReplicas,
      totalMilli: obs.totalMilli,
      targetAverageValueMilli,
      tolerance: scale.tolerance,
    }).replicas;
  }
  const targetValueMilli = milli(target.value, `${at}.target.value`);
  return valueReplicas({
    currentReplicas: scale.specReplicas,
    podStates: obs.podStates,
    valueMilli: obs.totalMilli,
    targetValueMilli,
    ...opts,
  }).replicas;
}

/**
 * Kubernetes' `computeReplicasForMetric`: picks the replica calculator by metric type and target type and turns
 * a calculation error into an invalid-metric proposal with the reason the HPA condition carries.
 */
export function proposeForMetric(
  spec: MetricSpec,
  observation: MetricObservation,
  scale: ScaleReplicas,
): MetricProposal {
  const { name } = describe(spec);
  try {
    return { metric: name, replicas: compute(spec, observation, scale) };
  } catch (error) {
    if (!(error instanceof MetricComputationError || error instanceof QuantityError)) throw error;
    return { metric: name, error, reason: FAILED_REASON[spec.type] };
  }
}
