import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { watchProvisioning } from './provisioning-watch.js';
import { ReadinessGates } from './readiness-gates.js';

const logger = pino({ level: 'silent' });

describe('watchProvisioning', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A repair that answers from `script` (true: all there; an Error: it cannot say), one entry per check. */
  function watched(script: Array<true | Error>) {
    const gates = new ReadinessGates();
    let n = 0;
    const stop = watchProvisioning({
      repair: async () => {
        const r = script[Math.min(n++, script.length - 1)]!;
        if (r instanceof Error) throw r;
        return [];
      },
      intervalMs: 1000,
      gates,
      logger,
    });
    return { gates, stop, checks: () => n };
  }

  it('one failed check between good ones does not close the gate', async () => {
    vi.useFakeTimers();
    const w = watched([true, new Error('timeout'), true]);
    for (let i = 0; i < 4; i++) {
      await vi.advanceTimersByTimeAsync(1000);
      expect(w.gates.open).toBe(true);
    }
    expect(w.checks()).toBeGreaterThanOrEqual(3);
    w.stop();
  });

  it('checks that keep failing for two intervals close it, naming JetStream; a good one opens it', async () => {
    vi.useFakeTimers();
    const w = watched([true, new Error('timeout'), new Error('timeout'), new Error('timeout'), true]);
    await vi.advanceTimersByTimeAsync(1000); // good
    await vi.advanceTimersByTimeAsync(2000); // failing since the second check
    expect(w.gates.open).toBe(true);
    await vi.advanceTimersByTimeAsync(1000);
    expect(w.gates.reasons()).toEqual([
      'provisioning: NATS JetStream cannot check or re-create the streams and buckets: timeout',
    ]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(w.gates.open).toBe(true);
    w.stop();
  });
});
