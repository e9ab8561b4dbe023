import { describe, expect, it } from 'vitest';
import { WorkQueue } from './work-queue.js';

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('WorkQueue', () => {
  it('queues a key once while it waits', async () => {
    const seen: string[] = [];
    let release!: () => void;
    const q = new WorkQueue(async (k) => {
      seen.push(k);
      if (k === 'blocker') await new Promise<void>((r) => (release = r));
    });
    q.add('blocker'); // occupies the single worker, so the adds below wait in the queue
    q.add('a');
    q.add('b');
    q.add('a');
    q.add('a');
    release();
    await q.idle();
    expect(seen).toEqual(['blocker', 'a', 'b']);
  });

  it('runs a key again when it was added during its reconcile, never twice at once', async () => {
    let running = 0;
    let maxRunning = 0;
    let runs = 0;
    let release!: () => void;
    const q = new WorkQueue(
      async () => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        runs++;
        if (runs === 1) await new Promise<void>((r) => (release = r));
        running--;
      },
      { concurrency: 4 },
    );
    q.add('k');
    await tick();
    q.add('k');
    q.add('k');
    release();
    await q.idle();
    expect(runs).toBe(2);
    expect(maxRunning).toBe(1);
  });

  it('retries a failing key with backoff and reports each failure', async () => {
    const errors: number[] = [];
    let calls = 0;
    const q = new WorkQueue(
      async () => {
        calls++;
        if (calls < 3) throw new Error('boom');
      },
      { baseBackoffMs: 1, onError: (_k, _e, attempt) => errors.push(attempt) },
    );
    q.add('x');
    while (calls < 3) await new Promise((r) => setTimeout(r, 5));
    await q.idle();
    expect(errors).toEqual([1, 2]);
    await q.stop();
  });

  it('honours requeueAfterMs and stop cancels it', async () => {
    let calls = 0;
    const q = new WorkQueue(async () => {
      calls++;
      return { requeueAfterMs: 1 };
    });
    q.add('t');
    while (calls < 3) await new Promise((r) => setTimeout(r, 2));
    await q.stop();
    const after = calls;
    await new Promise((r) => setTimeout(r, 20));
    expect(calls).toBe(after);
  });
});
