import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ReadinessGates } from './readiness-gates.js';
import { retryAtStartup } from './startup-retry.js';
import { LogCapture } from './testing/log-capture.js';

/** A connection that fails with the given errors in turn, then answers 'connected'; records what /readyz said. */
function flaky(failures: Error[], gates: ReadinessGates) {
  const seen: string[][] = [];
  let calls = 0;
  return {
    connect: async () => {
      seen.push(gates.reasons());
      const failure = failures[calls++];
      if (failure) throw failure;
      return 'connected';
    },
    calls: () => calls,
    seen,
  };
}

function setup() {
  const gates = new ReadinessGates();
  const capture = new LogCapture();
  return { gates, capture, logger: pino({ level: 'debug' }, capture) };
}

describe('retryAtStartup', () => {
  it('retries until the server answers, naming the last error on /readyz meanwhile, then opens the gate', async () => {
    const { gates, capture, logger } = setup();
    const c = flaky([new Error('cannot reach NATS at nats://nats:4222: TIMEOUT'), new Error('ECONNREFUSED')], gates);
    await expect(retryAtStartup(c.connect, { gate: 'nats', gates, logger, budgetMs: 10_000 })).resolves.toBe(
      'connected',
    );
    expect(c.calls()).toBe(3);
    expect(c.seen).toEqual([
      [],
      ['nats: connecting: cannot reach NATS at nats://nats:4222: TIMEOUT'],
      ['nats: connecting: ECONNREFUSED'],
    ]);
    expect(gates.open).toBe(true);
    expect(capture.lines.map((l) => [l.level, l.msg, l.attempt])).toEqual([
      [40, 'nats not reachable', 1],
      [40, 'nats not reachable', 2],
    ]);
  });

  it('gives up when the budget runs out and throws the last error, which names the server', async () => {
    const { gates, logger } = setup();
    let n = 0;
    const started = Date.now();
    const err = await retryAtStartup(
      async () => {
        throw new Error(`cannot reach NATS at nats://127.0.0.1:1 (attempt ${++n})`);
      },
      { gate: 'nats', gates, logger, budgetMs: 600 },
    ).catch((e: unknown) => e);
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
    expect(n).toBeGreaterThan(1);
    expect((err as Error).message).toBe(`cannot reach NATS at nats://127.0.0.1:1 (attempt ${n})`);
    expect(gates.reasons()).toEqual([`nats: connecting: cannot reach NATS at nats://127.0.0.1:1 (attempt ${n})`]);
  });

  it.each<[string, { budgetMs: number; isPermanent?: () => boolean }, Error, string[]]>([
    // The one failure is reported as any other; on the way out it is the error the process exits with.
    ['a budget of 0', { budgetMs: 0 }, new Error('TIMEOUT'), ['redis not reachable']],
    // Nothing says it might still come.
    [
      'a permanent error (refused credentials)',
      { budgetMs: 60_000, isPermanent: () => true },
      new Error('WRONGPASS'),
      [],
    ],
  ])('makes one attempt only for %s', async (_, options, failure, logged) => {
    const { gates, capture, logger } = setup();
    const c = flaky([failure, failure], gates);
    await expect(retryAtStartup(c.connect, { gate: 'redis', gates, logger, ...options })).rejects.toBe(failure);
    expect(c.calls()).toBe(1);
    expect(capture.lines.map((l) => l.msg)).toEqual(logged);
  });

  describe('cancelled by a stop', () => {
    beforeEach(() => vi.useFakeTimers());
    afterEach(() => vi.useRealTimers());

    it('makes no further attempt, however long the budget', async () => {
      const { gates, logger } = setup();
      const abort = new AbortController();
      const stopping = new Error('SIGTERM received');
      let calls = 0;
      const retrying = retryAtStartup(
        async () => {
          if (++calls === 2) abort.abort(stopping);
          throw new Error('TIMEOUT');
        },
        { gate: 'nats', gates, logger, budgetMs: 60_000, signal: abort.signal },
      );
      const settled = expect(retrying).rejects.toBe(stopping);
      await vi.advanceTimersByTimeAsync(120_000);
      await settled;
      expect(calls).toBe(2);
    });

    it('makes no attempt when the stop came first', async () => {
      const { gates, logger } = setup();
      const stopping = new Error('SIGTERM received');
      const c = flaky([], gates);
      await expect(
        retryAtStartup(c.connect, {
          gate: 'nats',
          gates,
          logger,
          budgetMs: 60_000,
          signal: AbortSignal.abort(stopping),
        }),
      ).rejects.toBe(stopping);
      expect(c.calls()).toBe(0);
    });

    it('closes a connection the attempt under way made after the stop', async () => {
      const { gates, logger } = setup();
      const abort = new AbortController();
      const disposed: string[] = [];
      const retrying = retryAtStartup(
        async () => {
          abort.abort(new Error('SIGTERM received'));
          return 'connection';
        },
        {
          gate: 'nats',
          gates,
          logger,
          budgetMs: 60_000,
          signal: abort.signal,
          dispose: async (made) => {
            disposed.push(made);
          },
        },
      );
      await expect(retrying).rejects.toThrow('SIGTERM received');
      await vi.waitFor(() => expect(disposed).toEqual(['connection']));
    });
  });
});
