import { describe, expect, it } from 'vitest';
import { parseDuration } from './duration.js';
import { SimulationSpecError } from './errors.js';

describe('parseDuration', () => {
  it.each([
    ['10m', 600_000],
    ['1h', 3_600_000],
    ['1h30m', 5_400_000],
    ['30s', 30_000],
    ['500ms', 500],
    ['1.5s', 1500],
    ['90', 90_000],
    [120, 120_000],
    ['0s', 0],
  ])('%j is %i ms', (input, ms) => {
    expect(parseDuration(input, 'spec.x')).toBe(ms);
  });

  it.each([['10 m'], ['1d'], [''], ['m'], ['-5s'], [-1], [null], [{}], ['1h30']])(
    'rejects %j naming the field',
    (input) => {
      expect(() => parseDuration(input, 'spec.simulation.loads[0].model.period')).toThrow(SimulationSpecError);
      expect(() => parseDuration(input, 'spec.simulation.loads[0].model.period')).toThrow(
        /^spec\.simulation\.loads\[0\]\.model\.period: invalid duration/,
      );
    },
  );
});
