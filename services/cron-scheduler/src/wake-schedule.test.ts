import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '@flotilla/runtime';
import { WakeSchedule } from './wake-schedule.js';

const T = Date.parse('2026-03-08T09:30:00Z');
let clock: ManualClock;
let woken: string[];
let wakes: WakeSchedule;

/** Moves the clock and the timers together, as real time does. */
function advance(ms: number): void {
  clock.advance(ms);
  vi.advanceTimersByTime(ms);
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  clock = new ManualClock(T);
  woken = [];
  wakes = new WakeSchedule(clock, (key) => woken.push(key));
});
afterEach(() => {
  wakes.clear();
  vi.useRealTimers();
});

describe('WakeSchedule', () => {
  it('keys due at the same instant share one timer, and each is woken once when it comes', () => {
    wakes.set('a', T + 1000);
    wakes.set('b', T + 1000);
    wakes.set('c', T + 2000);
    expect(vi.getTimerCount()).toBe(2);
    advance(999);
    expect(woken).toEqual([]);
    advance(1);
    expect(woken).toEqual(['a', 'b']);
    expect(vi.getTimerCount()).toBe(1);
    advance(1000);
    expect(woken).toEqual(['a', 'b', 'c']);
    advance(10_000);
    expect(woken).toEqual(['a', 'b', 'c']);
  });

  it('a key moved to another instant, or to none, is not woken at the old one; an instant left empty has no timer', () => {
    wakes.set('a', T + 1000);
    wakes.set('a', T + 2000);
    wakes.set('b', T + 1000);
    wakes.set('b', undefined);
    expect(vi.getTimerCount()).toBe(1);
    advance(1000);
    expect(woken).toEqual([]);
    advance(1000);
    expect(woken).toEqual(['a']);
  });

  it('wakeDue wakes what is due by then, once: the instant’s own timer then finds nothing to wake', () => {
    wakes.set('a', T + 1000);
    wakes.set('b', T + 5000);
    // A durable timer fires first (the local one is late, e.g. the event loop was busy).
    clock.advance(1500);
    wakes.wakeDue(clock.now().getTime());
    expect(woken).toEqual(['a']);
    vi.advanceTimersByTime(1500);
    expect(woken).toEqual(['a']);
    advance(3500);
    expect(woken).toEqual(['a', 'b']);
  });

  it('a due or past instant wakes at once', () => {
    wakes.set('a', T - 60_000);
    wakes.set('b', T);
    vi.advanceTimersByTime(0);
    expect(woken).toEqual(['a', 'b']);
  });

  it('a timer that fires before the clock reaches its instant waits for it', () => {
    wakes.set('a', T + 1000);
    // The wall clock runs behind the timers (stepped back, or slewed).
    clock.advance(400);
    vi.advanceTimersByTime(1000);
    expect(woken).toEqual([]);
    expect(vi.getTimerCount()).toBe(1);
    advance(600);
    expect(woken).toEqual(['a']);
  });

  it('an instant beyond the longest timer delay Node allows is waited for in steps', () => {
    const far = 40 * 24 * 3600_000;
    wakes.set('a', T + far);
    advance(2 ** 31 - 1);
    expect(woken).toEqual([]);
    advance(far - (2 ** 31 - 1) - 1);
    expect(woken).toEqual([]);
    advance(1);
    expect(woken).toEqual(['a']);
  });

  it('clear forgets every key and timer', () => {
    wakes.set('a', T + 1000);
    wakes.clear();
    expect(vi.getTimerCount()).toBe(0);
    advance(1000);
    wakes.wakeDue(clock.now().getTime());
    expect(woken).toEqual([]);
  });
});
