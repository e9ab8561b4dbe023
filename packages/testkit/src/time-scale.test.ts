import { describe, expect, it } from 'vitest';
import { MAX_TIME_SCALE, parseTimeScale, timeScaleForCpuShare } from './time-scale.js';

describe('timeScaleForCpuShare', () => {
  it.each([
    [1, 1],
    [0.97, 1],
    [0.94, 1.25],
    [0.9, 1.25],
    [2 / 3, 2],
    [0.5, 3],
    [0.4, MAX_TIME_SCALE],
    [0.1, MAX_TIME_SCALE],
    [0, MAX_TIME_SCALE],
    [1.3, 1],
  ])('a share of %s gives %s', (share, factor) => {
    expect(timeScaleForCpuShare(share)).toBe(factor);
  });
});

describe('parseTimeScale', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['1', 1],
    ['2.5', 2.5],
  ])('%s is %s', (raw, factor) => {
    expect(parseTimeScale(raw)).toBe(factor);
  });

  it.each(['0.5', 'fast', '10'])('refuses %s, naming the variable', (raw) => {
    expect(() => parseTimeScale(raw)).toThrow(`FLOTILLA_TEST_TIME_SCALE: expected a number from 1 to 4, got "${raw}"`);
  });
});
