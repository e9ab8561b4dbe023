import { describe, expect, it } from 'vitest';
import { SimulationSpecError } from './errors.js';
import { demandAt, loadOrigin, parseLoadModel, type LoadModel } from './load.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

describe('parseLoadModel', () => {
  it.each([
    [
      { type: 'constant', cores: 2 },
      { type: 'constant', cores: 2 },
    ],
    [
      { type: 'step', cores: 1, stepCores: 4, stepAfter: '10m' },
      { type: 'step', cores: 1, stepCores: 4, stepAfterMs: 10 * MIN },
    ],
    [
      { type: 'sine', cores: 2, amplitude: 1, period: '1h' },
      { type: 'sine', cores: 2, amplitude: 1, periodMs: HOUR },
    ],
    [
      { type: 'series', values: [1, 2, 3], interval: '30s' },
      { type: 'series', values: [1, 2, 3], intervalMs: 30_000 },
    ],
    [
      { type: 'constant', cores: 1, startTime: '2025-01-01T00:00:00Z' },
      { type: 'constant', cores: 1, startTimeMs: Date.parse('2025-01-01T00:00:00Z') },
    ],
  ])('%j', (raw, want) => {
    expect(parseLoadModel(raw, 'm')).toEqual(want);
  });

  it.each([
    [{ type: 'ramp' }, 'm.type: unsupported value "ramp"'],
    [{ cores: 1 }, 'm.type: unsupported value undefined'],
    [{ type: 'constant', cores: -1 }, 'm.cores: expected a non-negative number of cores, got -1'],
    [{ type: 'constant', cores: '2' }, 'm.cores: expected a non-negative number of cores, got "2"'],
    [{ type: 'step', cores: 1, stepCores: 4, stepAfter: 'soon' }, 'm.stepAfter: invalid duration "soon"'],
    [{ type: 'sine', cores: 1, amplitude: 1, period: '0s' }, 'm.period: must be longer than zero'],
    [{ type: 'sine', cores: 1, period: '1h' }, 'm.amplitude: expected a number of cores'],
    [{ type: 'series', values: [], interval: '1m' }, 'm.values: expected a non-empty list'],
    [{ type: 'series', values: [1, 'x'], interval: '1m' }, 'm.values[1]: expected a non-negative number'],
    [{ type: 'constant', cores: 1, startTime: 'yesterday' }, 'm.startTime: invalid time "yesterday"'],
    ['constant', 'm: expected an object with a type'],
  ])('rejects %j', (raw, message) => {
    expect(() => parseLoadModel(raw, 'm')).toThrow(SimulationSpecError);
    expect(() => parseLoadModel(raw, 'm')).toThrow(message);
  });
});

describe('demandAt', () => {
  const step: LoadModel = { type: 'step', cores: 1, stepCores: 4, stepAfterMs: 10 * MIN };
  const sine: LoadModel = { type: 'sine', cores: 2, amplitude: 1, periodMs: HOUR };
  const deep: LoadModel = { type: 'sine', cores: 1, amplitude: 3, periodMs: HOUR };
  const series: LoadModel = { type: 'series', values: [1, 2, 3], intervalMs: 30_000 };
  it.each([
    ['constant', { type: 'constant', cores: 2 } as LoadModel, 12345, 2],
    ['step before', step, 0, 1],
    ['step just before', step, 10 * MIN - 1, 1],
    ['step at', step, 10 * MIN, 4],
    ['step after', step, 2 * HOUR, 4],
    ['sine at 0', sine, 0, 2],
    ['sine at a quarter period', sine, HOUR / 4, 3],
    ['sine at half period', sine, HOUR / 2, 2],
    ['sine at three quarters', sine, (3 * HOUR) / 4, 1],
    ['sine one period later', sine, HOUR + HOUR / 4, 3],
    ['sine floors at zero', deep, (3 * HOUR) / 4, 0],
    ['series first', series, 0, 1],
    ['series second', series, 30_000, 2],
    ['series third', series, 89_999, 3],
    ['series loops', series, 90_000, 1],
    ['series before its origin', series, -1, 3],
  ])('%s', (_name, model, t, want) => {
    expect(demandAt(model, t)).toBeCloseTo(want, 9);
  });
});

describe('loadOrigin', () => {
  it.each([
    ['step counts from first sight', { type: 'step', cores: 1, stepCores: 2, stepAfterMs: 1 } as LoadModel, 500],
    ['sine counts from the epoch', { type: 'sine', cores: 1, amplitude: 1, periodMs: 1 } as LoadModel, 0],
    ['series counts from the epoch', { type: 'series', values: [1], intervalMs: 1 } as LoadModel, 0],
    ['startTime wins', { type: 'step', cores: 1, stepCores: 2, stepAfterMs: 1, startTimeMs: 42 } as LoadModel, 42],
  ])('%s', (_name, model, want) => {
    expect(loadOrigin(model, 500)).toBe(want);
  });
});
