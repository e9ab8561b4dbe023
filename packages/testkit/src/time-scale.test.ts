import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  CpuWaitingRecorder,
  cpuWaitingTotalUs,
  MAX_TIME_SCALE,
  parseTimeScale,
  timeScaleForCpuShare,
  timeScaleForCpuWaiting,
} from './time-scale.js';

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

describe('timeScaleForCpuWaiting', () => {
  it.each([
    [0, 1],
    [0.05, 1],
    [0.1, 1.25],
    [0.3, 1.5],
    [0.5, 2],
    [0.7, 3.5],
    [0.8, MAX_TIME_SCALE],
    [1, MAX_TIME_SCALE],
    [Number.NaN, MAX_TIME_SCALE],
  ])('some task waiting %s of the time gives %s', (share, factor) => {
    expect(timeScaleForCpuWaiting(share)).toBe(factor);
  });
});

describe('cpuWaitingTotalUs', () => {
  it('reads the "some" total of /proc/pressure/cpu', () => {
    const psi =
      'some avg10=10.23 avg60=22.17 avg300=21.62 total=18965279029\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n';
    expect(cpuWaitingTotalUs(() => psi)).toBe(18965279029);
  });

  it('is undefined where the kernel keeps no pressure figures', () => {
    expect(
      cpuWaitingTotalUs(() => {
        throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
      }),
    ).toBeUndefined();
    expect(cpuWaitingTotalUs(() => '')).toBeUndefined();
  });
});

describe('CpuWaitingRecorder', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('measures a window by the samples around it', async () => {
    vi.useFakeTimers({ now: 0 });
    // Idle for a second, then some task waits half of every millisecond.
    const recorder = new CpuWaitingRecorder(100, () => Math.max(0, Date.now() - 1000) * 500);
    await vi.advanceTimersByTimeAsync(3000);
    expect(recorder.waitingShare(0, 1000)).toBe(0);
    expect(recorder.waitingShare(1000, 3000)).toBe(0.5);
    expect(recorder.waitingShare(1050, 2050)).toBe(0.5);
    expect(recorder.waitingShare(500, 1500)).toBe(0.25);
    recorder.stop();
  });

  it('has no figure without pressure figures, and samples nothing then', () => {
    vi.useFakeTimers({ now: 0 });
    const read = vi.fn(() => undefined);
    const recorder = new CpuWaitingRecorder(100, read);
    vi.advanceTimersByTime(1000);
    expect(recorder.waitingShare(0, 1000)).toBeUndefined();
    expect(read).toHaveBeenCalledTimes(2);
    recorder.stop();
  });
});
