import { describe, expect, it } from 'vitest';
import { SimulationSpecError } from './sim/errors.js';
import { formatCpu, formatMemory, resourcesFrom, toResourceList } from './resources.js';

describe('resourcesFrom', () => {
  it.each([
    [
      { cpu: '8', memory: '32Gi', pods: '110' },
      { cpuMilli: 8000, memoryBytes: 32 * 2 ** 30, pods: 110 },
    ],
    [
      { cpu: '500m', memory: '1G' },
      { cpuMilli: 500, memoryBytes: 1e9, pods: 0 },
    ],
    [{ cpu: 0.25 }, { cpuMilli: 250, memoryBytes: 0, pods: 0 }],
    [{ cpu: '0.1m' }, { cpuMilli: 1, memoryBytes: 0, pods: 0 }],
    [undefined, { cpuMilli: 0, memoryBytes: 0, pods: 0 }],
  ])('%j', (input, want) => {
    expect(resourcesFrom(input, 'spec.a')).toEqual(want);
  });

  it.each([
    [{ cpu: 'lots' }, 'spec.a.cpu: invalid quantity "lots"'],
    [{ memory: '-1Gi' }, 'spec.a.memory: invalid quantity "-1Gi": must not be negative'],
    [{ pods: '1.5' }, 'spec.a.pods: invalid count "1.5"'],
    [{ cpu: true }, 'spec.a.cpu: invalid quantity true'],
    [['8'], 'spec.a: expected a map'],
  ])('rejects %j', (input, message) => {
    expect(() => resourcesFrom(input, 'spec.a')).toThrow(SimulationSpecError);
    expect(() => resourcesFrom(input, 'spec.a')).toThrow(message);
  });
});

describe('formatting', () => {
  it.each([
    [0, '0'],
    [3000, '3'],
    [2500, '2500m'],
    [1, '1m'],
  ])('cpu %i m is %s', (m, s) => expect(formatCpu(m)).toBe(s));

  it.each([
    [0, '0'],
    [32 * 2 ** 30, '32Gi'],
    [1536 * 2 ** 20, '1536Mi'],
    [1e9, '1G'],
    [128e6, '128M'],
    [1500, '1500'],
    [2 ** 10, '1Ki'],
  ])('memory %i is %s', (b, s) => expect(formatMemory(b)).toBe(s));

  it('a resource list has cpu, memory and pods', () => {
    expect(toResourceList({ cpuMilli: 1500, memoryBytes: 2 ** 31, pods: 3 })).toEqual({
      cpu: '1500m',
      memory: '2Gi',
      pods: '3',
    });
  });
});
