import { afterEach, describe, expect, it } from 'vitest';
import { KeyedLanes } from './keyed-lanes.js';

/** What tasks of `lanesOf` lanes reported: they are not meant to fail, so each test ends with none. */
const unexpected: unknown[] = [];
afterEach(() => {
  expect(unexpected.splice(0)).toEqual([]);
});
const lanesOf = (limit: number) => new KeyedLanes({ limit, onError: (err, key) => unexpected.push([key, err]) });

const tick = () => new Promise((r) => setTimeout(r, 1));

describe('KeyedLanes', () => {
  it('runs the tasks of one key in order, one at a time, and other keys beside them', async () => {
    const lanes = lanesOf(8);
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
    lanes.add('a', task('a', 1, 30));
    lanes.add('b', task('b', 1, 1));
    lanes.add('a', task('a', 2, 1));
    lanes.add('b', task('b', 2, 1));
    lanes.add('a', task('a', 3, 1));
    await lanes.drain();
    expect(log.filter((l) => l.startsWith('a'))).toEqual(['a1', 'a2', 'a3']);
    expect(log.filter((l) => l.startsWith('b'))).toEqual(['b1', 'b2']);
    expect(log.indexOf('b2')).toBeLessThan(log.indexOf('a1'));
    expect(maxConcurrentA).toBe(1);
  });

  it('runs no more than the limit at once, and a key that is stuck holds only its own slot', async () => {
    const lanes = lanesOf(2);
    let running = 0;
    let max = 0;
    const release: Array<() => void> = [];
    const held = () => async () => {
      max = Math.max(max, ++running);
      await new Promise<void>((r) => release.push(r));
      running--;
    };
    const ran: string[] = [];
    // Key "stuck" has one running task and many waiting behind it; "a", "b" and "c" must still get the other slot.
    lanes.add('stuck', held());
    for (let i = 0; i < 10; i++) lanes.add('stuck', async () => void ran.push(`stuck${i}`));
    lanes.add('a', held());
    lanes.add('b', async () => void ran.push('b'));
    lanes.add('c', async () => void ran.push('c'));
    await tick();
    expect(running).toBe(2);
    expect(ran).toEqual([]);
    release.splice(1, 1)[0]!(); // a finishes: b and c run in its slot while "stuck" still waits
    await tick();
    expect(ran).toEqual(['b', 'c']);
    expect(lanes.size).toBe(11);
    release.shift()!();
    await lanes.drain();
    expect(ran.slice(2)).toEqual(Array.from({ length: 10 }, (_, i) => `stuck${i}`));
    expect(max).toBe(2);
    expect(lanes.size).toBe(0);
  });

  it.each([
    { reporter: 'that records', throws: false },
    { reporter: 'that throws itself', throws: true },
  ])('reports a failed task with its key to a reporter $reporter, and goes on with the key', async ({ throws }) => {
    const errors: Array<[string, string]> = [];
    const lanes = new KeyedLanes({
      limit: 1,
      onError: (err, key) => {
        errors.push([key, (err as Error).message]);
        if (throws) throw new Error('the reporter broke');
      },
    });
    const log: string[] = [];
    lanes.add('k', async () => {
      throw new Error('boom');
    });
    lanes.add('k', async () => {
      log.push('after');
    });
    await lanes.drain();
    expect(errors).toEqual([['k', 'boom']]);
    expect(log).toEqual(['after']);
    expect(lanes.size).toBe(0);
  });

  it('rejects a limit that is not a positive integer', () => {
    expect(() => lanesOf(0)).toThrow(/positive integer/);
  });
});
