import { describe, expect, it } from 'vitest';
import { SpreadSweep } from './spread-sweep.js';

describe('SpreadSweep', () => {
  it('visits every key once per period, an even slice per tick, and reads the keys again for the next pass', () => {
    let keys = Array.from({ length: 10 }, (_, i) => `k${i}`);
    const visited: string[][] = [];
    const sweep = new SpreadSweep({
      keys: () => keys,
      periodMs: 4000,
      tickMs: 1000,
      visit: (k) => visited[visited.length - 1]!.push(k),
    });
    const tick = () => {
      visited.push([]);
      sweep.tick();
    };
    for (let i = 0; i < 4; i++) tick();
    expect(visited.map((v) => v.length)).toEqual([3, 3, 3, 1]);
    expect(visited.flat()).toEqual(keys);
    keys = ['x', 'y'];
    tick();
    tick();
    expect(visited.slice(4)).toEqual([['x'], ['y']]);
  });

  it('with fewer keys than ticks in a period, visits each key once per period, not once per pass of its own', () => {
    const visited: string[] = [];
    const sweep = new SpreadSweep({
      keys: () => ['a', 'b'],
      periodMs: 5000,
      tickMs: 1000,
      visit: (k) => visited.push(k),
    });
    for (let i = 0; i < 10; i++) sweep.tick();
    expect(visited).toEqual(['a', 'b', 'a', 'b']);
  });

  it('visits everything each tick when the period is no longer than a tick', () => {
    const visited: string[] = [];
    const sweep = new SpreadSweep({
      keys: () => ['a', 'b', 'c'],
      periodMs: 500,
      tickMs: 1000,
      visit: (k) => visited.push(k),
    });
    sweep.tick();
    expect(visited).toEqual(['a', 'b', 'c']);
  });

  it('runs on its own timer until stopped', async () => {
    const visited: string[] = [];
    const sweep = new SpreadSweep({ keys: () => ['a'], periodMs: 20, tickMs: 10, visit: (k) => visited.push(k) });
    sweep.start();
    await new Promise((r) => setTimeout(r, 80));
    sweep.stop();
    const seen = visited.length;
    expect(seen).toBeGreaterThanOrEqual(2);
    await new Promise((r) => setTimeout(r, 40));
    expect(visited.length).toBe(seen);
  });
});
