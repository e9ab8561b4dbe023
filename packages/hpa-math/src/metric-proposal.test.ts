import type { MetricSpec } from '@flotilla/api';
import { describe, expect, it } from 'vitest';
import type { PodSample } from './group-pods.js';
import { proposeForMetric, type MetricObservation } from './metric-proposal.js';

const scale = { specReplicas: 3, statusReplicas: 3 };
const ready = (requestMilli: number, valueMilli: number): PodSample => ({ state: 'ready', requestMilli, valueMilli });
const unready = (requestMilli: number, valueMilli: number): PodSample => ({
  state: 'unready',
  requestMilli,
  valueMilli,
});
const describedObject = { kind: 'Ingress', name: 'web' };

type Row = { name: string; spec: MetricSpec; observation: MetricObservation; want: number };

// Kubernetes' computeReplicasForMetric: the calculator is chosen by metric type and target type.
const cases: Row[] = [
  {
    name: 'Resource Utilization on cpu leaves unready pods out',
    spec: { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 30 } } },
    observation: { kind: 'pods', pods: [unready(2000, 600), ready(2000, 1000), ready(2000, 1400)] },
    want: 4,
  },
  {
    name: 'Resource AverageValue on memory counts unready pods',
    spec: { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '100Mi' } } },
    observation: {
      kind: 'pods',
      pods: [unready(0, 200 * 2 ** 20 * 1000), ready(0, 200 * 2 ** 20 * 1000), ready(0, 200 * 2 ** 20 * 1000)],
    },
    want: 6,
  },
  {
    name: 'ContainerResource Utilization',
    spec: {
      type: 'ContainerResource',
      containerResource: { name: 'cpu', container: 'app', target: { type: 'Utilization', averageUtilization: 50 } },
    },
    observation: { kind: 'pods', pods: [ready(1000, 1000), ready(1000, 1000), ready(1000, 1000)] },
    want: 6,
  },
  {
    name: 'Pods AverageValue (quantity "15")',
    spec: { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '15' } } },
    observation: { kind: 'pods', pods: [ready(0, 20000), ready(0, 10000), ready(0, 30000)] },
    want: 4,
  },
  {
    name: 'Object Value',
    spec: {
      type: 'Object',
      object: { describedObject, metric: { name: 'rps' }, target: { type: 'Value', value: '15' } },
    },
    observation: { kind: 'total', totalMilli: 20000, podStates: ['ready', 'ready', 'ready'] },
    want: 4,
  },
  {
    name: 'Object AverageValue',
    spec: {
      type: 'Object',
      object: { describedObject, metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '5' } },
    },
    observation: { kind: 'total', totalMilli: 20000, podStates: [] },
    want: 4,
  },
  {
    name: 'External Value ("4400m")',
    spec: { type: 'External', external: { metric: { name: 'queue' }, target: { type: 'Value', value: '4400m' } } },
    observation: { kind: 'total', totalMilli: 8600, podStates: ['unready', 'ready', 'unready'] },
    want: 2,
  },
  {
    name: 'External AverageValue ("2150m")',
    spec: {
      type: 'External',
      external: { metric: { name: 'queue' }, target: { type: 'AverageValue', averageValue: '2150m' } },
    },
    observation: { kind: 'total', totalMilli: 8600, podStates: [] },
    want: 4,
  },
];

describe('proposeForMetric', () => {
  it.each(cases)('$name', ({ spec, observation, want }) => {
    expect(proposeForMetric(spec, observation, scale)).toMatchObject({ replicas: want });
  });

  it('turns a calculation error into an invalid metric with the condition reason of its type', () => {
    const spec: MetricSpec = {
      type: 'Resource',
      resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } },
    };
    const out = proposeForMetric(spec, { kind: 'pods', pods: [{ state: 'ready', valueMilli: 100 }] }, scale);
    expect(out).toMatchObject({ metric: 'cpu resource', reason: 'FailedGetResourceMetric' });
    expect('error' in out && out.error.message).toBe('pods[0].requestMilli: missing request for cpu');
  });

  it('names a missing target field', () => {
    const spec: MetricSpec = {
      type: 'External',
      external: { metric: { name: 'queue' }, target: { type: 'AverageValue' } },
    };
    const out = proposeForMetric(spec, { kind: 'total', totalMilli: 1, podStates: [] }, scale);
    expect('error' in out && out.error.message).toBe('external.target.averageValue: Required value');
  });

  it('rejects an observation of the wrong shape', () => {
    const spec: MetricSpec = {
      type: 'Pods',
      pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '1' } },
    };
    const out = proposeForMetric(spec, { kind: 'total', totalMilli: 1, podStates: [] }, scale);
    expect('error' in out && out.error.message).toBe('observation.kind: a Pods metric needs a pods observation');
  });
});
