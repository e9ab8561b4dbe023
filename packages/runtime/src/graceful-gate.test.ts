import { afterEach, describe, expect, it, vi } from 'vitest';
import { gateOpen, GracefulGate } from './graceful-gate.js';

describe('gateOpen', () => {
  it.each([
    { name: 'before the first success', everOk: false, failingSinceMs: undefined, nowMs: 0, open: false },
    { name: 'starting and failing', everOk: false, failingSinceMs: 0, nowMs: 10, open: false },
    { name: 'after a success, nothing failing', everOk: true, failingSinceMs: undefined, nowMs: 10, open: true },
    { name: 'failing for less than the grace', everOk: true, failingSinceMs: 100, nowMs: 1099, open: true },
    { name: 'failing for the whole grace', everOk: true, failingSinceMs: 100, nowMs: 1100, open: false },
  ])('$name: open $open', ({ everOk, failingSinceMs, nowMs, open }) => {
    expect(gateOpen({ everOk, failingSinceMs, nowMs, graceMs: 1000 })).toBe(open);
  });
});

describe('GracefulGate', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function gate(startsOk = false) {
    const log: string[] = [];
    const g = new GracefulGate({
      sink: { set: (name, open, reason) => log.push(open ? `${name} open` : `${name} closed: ${reason}`) },
      gate: 'g',
      graceMs: 1000,
      startingReason: 'starting',
      startsOk,
    });
    return { g, closings: () => log.filter((l) => l.includes('closed')) };
  }

  it('closed until the first success; a failure then closes it at once, with its reason', () => {
    const { g, closings } = gate();
    g.failed('refused');
    expect(closings()).toEqual(['g closed: starting', 'g closed: refused']);
    g.ok();
    expect(closings()).toHaveLength(2);
  });

  it('after a success, one failure followed by a success within the grace never closes it', () => {
    vi.useFakeTimers();
    const { g, closings } = gate(true);
    g.failed('one bad request');
    vi.advanceTimersByTime(999);
    g.ok();
    vi.advanceTimersByTime(5000);
    expect(closings()).toEqual([]);
  });

  it('failures that last the grace close it with the last reason; the next success opens it', () => {
    vi.useFakeTimers();
    const { g, closings } = gate(true);
    g.failed('first');
    vi.advanceTimersByTime(500);
    g.failed('second');
    expect(closings()).toEqual([]);
    vi.advanceTimersByTime(500);
    expect(closings()).toEqual(['g closed: second']);
    g.ok();
    g.failed('again');
    expect(closings()).toEqual(['g closed: second']);
  });
});
