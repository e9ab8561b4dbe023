import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { debounce } from './debounce.js';

describe('debounce', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('calls once, quietMs after the last call of a burst', () => {
    const fn = vi.fn();
    const call = debounce(fn, 200);
    for (let i = 0; i < 5; i++) {
      call();
      vi.advanceTimersByTime(50);
    }
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(149);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fn).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(10_000);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('calls at least once every maxWaitMs while the calls never pause for quietMs', () => {
    const fn = vi.fn();
    const call = debounce(fn, 200, 1000);
    const firedAt: number[] = [];
    fn.mockImplementation(() => firedAt.push(Date.now() - start));
    const start = Date.now();
    // A call every 150 ms for 3.5 s: never a 200 ms pause.
    for (let t = 0; t < 3500; t += 150) {
      call();
      vi.advanceTimersByTime(150);
    }
    expect(firedAt).toEqual([1000, 2050, 3100]);
    vi.advanceTimersByTime(200);
    expect(fn).toHaveBeenCalledTimes(4);
  });

  it('waits at most 5 × quietMs by default', () => {
    const fn = vi.fn();
    const call = debounce(fn, 100);
    for (let t = 0; t < 500; t += 50) {
      call();
      vi.advanceTimersByTime(50);
    }
    expect(fn).toHaveBeenCalledTimes(1);
  });
});
