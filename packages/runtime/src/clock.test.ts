import { describe, expect, it } from 'vitest';
import { ManualClock, systemClock } from './clock.js';

describe('clocks', () => {
  it('ManualClock moves only when told', () => {
    const clock = new ManualClock(new Date('2026-03-08T06:59:59.000Z'));
    expect(clock.now().toISOString()).toBe('2026-03-08T06:59:59.000Z');
    expect(clock.advance(1000).toISOString()).toBe('2026-03-08T07:00:00.000Z');
    clock.set(Date.parse('2026-11-01T05:30:00.000Z'));
    expect(clock.now().toISOString()).toBe('2026-11-01T05:30:00.000Z');
  });

  it('ManualClock hands out copies, not its own state', () => {
    const clock = new ManualClock(0);
    clock.now().setTime(999);
    expect(clock.now().getTime()).toBe(0);
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])('ManualClock refuses advance(%s)', (ms) => {
    expect(() => new ManualClock(0).advance(ms)).toThrow(RangeError);
  });

  it('systemClock returns a current Date', () => {
    expect(systemClock.now()).toBeInstanceOf(Date);
  });
});
