import { describe, expect, it } from 'vitest';
import { SimulationSpecError } from './errors.js';
import { parseSimulation } from './simulation-spec.js';

describe('parseSimulation', () => {
  it('reads what `flotilla cluster add --sim` writes, with defaults', () => {
    expect(parseSimulation({ allocatable: { cpu: '8', memory: '32Gi', pods: '110' } })).toEqual({
      allocatable: { cpuMilli: 8000, memoryBytes: 32 * 2 ** 30, pods: 110 },
      kubernetesVersion: 'v1.31.0',
      failed: false,
      loads: [],
      foreignHpas: [],
    });
  });

  it('reads the HPAs someone made in the cluster without Flotilla, namespace defaulted', () => {
    const s = parseSimulation({
      allocatable: { cpu: '2' },
      foreignHorizontalPodAutoscalers: [
        { name: 'local', scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 5 },
      ],
    });
    expect(s.foreignHpas).toEqual([
      {
        namespace: 'default',
        name: 'local',
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        maxReplicas: 5,
      },
    ]);
  });

  it('reads failed, version and loads', () => {
    const s = parseSimulation({
      allocatable: { cpu: '2' },
      kubernetesVersion: 'v1.29.3',
      failed: true,
      loads: [{ workload: { kind: 'Deployment', name: 'web' }, model: { type: 'constant', cores: 1.5 } }],
    });
    expect(s.failed).toBe(true);
    expect(s.kubernetesVersion).toBe('v1.29.3');
    expect(s.loads).toEqual([
      { workload: { kind: 'Deployment', namespace: 'default', name: 'web' }, model: { type: 'constant', cores: 1.5 } },
    ]);
  });

  it.each([
    [{}, 'spec.simulation.allocatable: required'],
    [{ allocatable: { cpu: 'x' } }, 'spec.simulation.allocatable.cpu: invalid quantity "x"'],
    [{ allocatable: {}, failed: 'yes' }, 'spec.simulation.failed: expected true or false'],
    [{ allocatable: {}, kubernetesVersion: 131 }, 'spec.simulation.kubernetesVersion: expected a string'],
    [{ allocatable: {}, cpu: 8 }, 'spec.simulation.cpu: unknown field'],
    [{ allocatable: {}, loads: {} }, 'spec.simulation.loads: expected a list'],
    [
      { allocatable: {}, foreignHorizontalPodAutoscalers: {} },
      'spec.simulation.foreignHorizontalPodAutoscalers: expected a list',
    ],
    [
      { allocatable: {}, foreignHorizontalPodAutoscalers: [{ name: 'h', scaleTargetRef: { kind: 'Deployment' } }] },
      'spec.simulation.foreignHorizontalPodAutoscalers[0].scaleTargetRef.name: required',
    ],
    [
      { allocatable: {}, loads: [{ workload: { kind: 'Deployment' }, model: { type: 'constant', cores: 1 } }] },
      'spec.simulation.loads[0].workload.name: required',
    ],
    [
      {
        allocatable: {},
        loads: [
          {
            workload: { kind: 'Deployment', name: 'w' },
            model: { type: 'sine', cores: 1, amplitude: 1, period: 'daily' },
          },
        ],
      },
      'spec.simulation.loads[0].model.period: invalid duration "daily"',
    ],
    ['big', 'spec.simulation: expected an object'],
  ])('rejects %j', (raw, message) => {
    expect(() => parseSimulation(raw)).toThrow(SimulationSpecError);
    expect(() => parseSimulation(raw)).toThrow(message);
  });
});
