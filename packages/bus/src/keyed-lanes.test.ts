import { describe, expect, it } from 'vitest';
import { KeyedLanes } from './keyed-lanes.js';

const tick = () => new Promise((r) => setTimeout(r, 1));

describe('KeyedLanes', () => {
  it('runs the tasks of one key in order, one at a time, and other keys beside them', async () => {
    const lanes = new KeyedLanes(8);
    const log: string[] = [];
    let concurrentA = 0;
    let maxConcurrentA = 0;
    const task = (key: string, i: number, delayMs: number) => async () => {
      if (key === 'a') maxConcurrentA = Math.max(maxConcurrentA, ++concurrentA);
      await new Promise((r) => setTimeout(r, delayMs));
      if (key === 'a') concurrentA--;
      log.push(`${key}${i}`);
    };
    // a's first task is the slowest: b's tasks finish before it, a's others still wait for it.
    await lanes.add('a', task('a', 1, 30));
    await lanes.add('b', task('b', 1, 1));
    await lanes.add('a', task('a', 2, 1));
    await lanes.add('b', task('b', 2, 1));
    await lanes.add('a', task('a', 3, 1));
    await lanes.drain();
    expect(log.filter((l) => l.startsWith('a'))).toEqual(['a1', 'a2', 'a3']);
    expect(log.filter((l) => l.startsWith('b'))).toEqual(['b1', 'b2']);
    expect(log.indexOf('b2')).toBeLessThan(log.indexOf('a1'));
    expect(maxConcurrentA).toBe(1);
  });

  it('admits no more than the limit at once; add waits for a free slot', async () => {
    const lanes = new KeyedLanes(2);
    let running = 0;
    let max = 0;
    const release: Array<() => void> = [];
    const task = () => async () => {
      max = Math.max(max, ++running);
      await new Promise<void>((r) => release.push(r));
      running--;
    };
    await lanes.add('x', task());
    await lanes.add('y', task());
    let thirdAdmitted = false;
    const third = lanes.add('z', task()).then(() => (thirdAdmitted = true));
    await tick();
    expect(thirdAdmitted).toBe(false);
    expect(lanes.size).toBe(2);
    release.shift()!();
    await third;
    expect(thirdAdmitted).toBe(true);
    while (release.length || lanes.size) {
      release.shift()?.();
      await tick();
    }
    await lanes.drain();
    expect(max).toBe(2);
  });

  it('goes on with a key after one of its tasks failed', async () => {
    const lanes = new KeyedLanes(1);
    const log: string[] = [];
    await lanes.add('k', async () => {
      throw new Error('boom');
    });
    await lanes.add('k', async () => {
      log.push('after');
    });
    await lanes.drain();
    expect(log).toEqual(['after']);
  });

  it('rejects a limit that is not a positive integer', () => {
    expect(() => new KeyedLanes(0)).toThrow(/positive integer/);
  });
});
