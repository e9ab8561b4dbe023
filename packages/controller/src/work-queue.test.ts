import { describe, expect, it } from 'vitest';
import { WorkQueue } from './work-queue.js';

const tick = () => new Promise((r) => setTimeout(r, 0));
/** Lets a queued reconcile start: runs begin on a later turn of the event loop. */
const started = async () => {
  await new Promise((r) => setImmediate(r));
  await tick();
};

/**
 * A queue with one worker, held by the key 'blocker' so that what is added next waits in the queue; `drain`
 * releases it and resolves when everything has run. `seen` is the order the keys ran in.
 */
function heldQueue(opts: ConstructorParameters<typeof WorkQueue>[1] = {}) {
  const seen: string[] = [];
  let release!: () => void;
  const q = new WorkQueue(async (k) => {
    seen.push(k);
    if (k === 'blocker') await new Promise<void>((r) => (release = r));
  }, opts);
  q.add('blocker');
  const drain = async () => {
    await started();
    release();
    await q.idle();
  };
  return { q, seen, drain };
}

describe('WorkQueue', () => {
  it('queues a key once while it waits', async () => {
    const { q, seen, drain } = heldQueue();
    q.add('a');
    q.add('b');
    q.add('a');
    q.add('a');
    await drain();
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

  it('a requeue later than a timer can hold waits, rather than firing at once', async () => {
    let calls = 0;
    const q = new WorkQueue(async () => {
      calls++;
      return { requeueAfterMs: 3_000_000_000 };
    });
    q.add('t');
    await new Promise((r) => setTimeout(r, 30));
    await q.stop();
    expect(calls).toBe(1);
  });

  it('runs changes before a background sweep, yet gives the sweep every eighth slot', async () => {
    const { q, seen, drain } = heldQueue();
    for (let i = 0; i < 20; i++) q.addBackground(`bg${i}`);
    for (let i = 0; i < 10; i++) q.add(`change${i}`);
    await drain();
    expect(seen).toHaveLength(31);
    // Pick 1 was the blocker; picks 2-7 are changes, pick 8 is the sweep's, then the remaining changes, then the sweep.
    expect(seen.slice(1, 12)).toEqual([
      'change0',
      'change1',
      'change2',
      'change3',
      'change4',
      'change5',
      'bg0',
      'change6',
      'change7',
      'change8',
      'change9',
    ]);
    expect(seen.slice(12)).toEqual(Array.from({ length: 19 }, (_, i) => `bg${i + 1}`));
  });

  it('moves a key waiting in the background lane up when it changes, and runs it once', async () => {
    const { q, seen, drain } = heldQueue();
    q.addBackground('a');
    q.addBackground('b');
    q.add('b');
    q.addBackground('b');
    expect(q.length).toBe(3);
    await drain();
    expect(seen).toEqual(['blocker', 'b', 'a']);
  });

  it('runs a key again when a sweep finds it running: that run may have read its inputs before the change', async () => {
    let runs = 0;
    let release!: () => void;
    const q = new WorkQueue(async () => {
      runs++;
      if (runs === 1) await new Promise<void>((r) => (release = r));
    });
    q.add('k');
    await started();
    q.addBackground('k');
    release();
    await q.idle();
    expect(runs).toBe(2);
  });

  it('lets I/O in during a long run of reconciles that need none', async () => {
    let done = 0;
    const q = new WorkQueue(
      async () => {
        const until = performance.now() + 1;
        while (performance.now() < until); // a millisecond of pure computation
        done++;
      },
      { concurrency: 8 },
    );
    // I/O as socket reads would come: each timer is set when the previous one ran, so they are spread over the run
    // however late the first one fires. All three must run before the end, with reconciles between them.
    const doneWhenIoRan: number[] = [];
    const io = () => {
      doneWhenIoRan.push(done);
      if (doneWhenIoRan.length < 3) setTimeout(io, 5);
    };
    setTimeout(io, 5);
    for (let i = 0; i < 200; i++) q.addBackground(`k${i}`);
    await q.idle();
    expect(doneWhenIoRan).toHaveLength(3);
    expect(doneWhenIoRan.every((n) => n < 180)).toBe(true);
    expect(doneWhenIoRan[2]!).toBeGreaterThan(doneWhenIoRan[0]!);
  });

  it('runs a higher priority first, equal priorities in the order they came, in both lanes', async () => {
    const priorities: Record<string, number> = { low: -5, high: 100, high2: 100, mid: 7, sweep: 100 };
    const { q, seen, drain } = heldQueue({ priorityOf: (k) => priorities[k] ?? 0 });
    for (const k of ['low', 'plain', 'high', 'mid', 'high2']) q.add(k);
    await drain();
    expect(seen).toEqual(['blocker', 'high', 'high2', 'mid', 'plain', 'low']);
    // The background lane (a resync) by priority too: ahead of a lower one that waited longer, after the changes.
    const again = heldQueue({ priorityOf: (k) => priorities[k] ?? 0 });
    again.q.addBackground('plain');
    again.q.addBackground('sweep');
    again.q.add('low');
    await again.drain();
    expect(again.seen).toEqual(['blocker', 'low', 'sweep', 'plain']);
  });

  it('queues a key whose priority cannot be told at 0, tells the error, and goes on', async () => {
    const errors: string[] = [];
    const { q, seen, drain } = heldQueue({
      priorityOf: (k) => {
        if (k === 'broken') throw new Error('no priority');
        return k === 'high' ? 1 : Number.NaN;
      },
      onError: (k, err) => errors.push(`${k}: ${(err as Error).message}`),
    });
    for (const k of ['broken', 'nan', 'high']) q.add(k);
    await drain();
    expect(seen).toEqual(['blocker', 'high', 'broken', 'nan']);
    expect(errors).toEqual(['broken: no priority']);
  });

  it('orders a whole pass by priority when its keys are queued together, though workers are free', async () => {
    const seen: string[] = [];
    const q = new WorkQueue(
      async (k) => {
        seen.push(k);
      },
      { concurrency: 4, priorityOf: (k) => (k.startsWith('high') ? 1 : 0) },
    );
    q.together(() => {
      for (const k of ['low1', 'low2', 'high1', 'low3', 'high2']) q.addBackground(k);
    });
    await q.idle();
    expect(seen).toEqual(['high1', 'high2', 'low1', 'low2', 'low3']);
  });

  it('keeps a long queue first in, first out', async () => {
    const seen: string[] = [];
    const q = new WorkQueue(async (k) => {
      seen.push(k);
    });
    const keys = Array.from({ length: 5000 }, (_, i) => `k${i}`);
    for (const k of keys) q.addBackground(k);
    await q.idle();
    expect(seen).toEqual(keys);
  });
});

describe("WorkQueue depth, age and outcomes (as client-go's workqueue metrics report them)", () => {
  it('counts waiting keys, not the running one, and ages the one waiting longest', async () => {
    let clock = 1_000;
    let release!: () => void;
    const q = new WorkQueue(
      async (k) => {
        if (k === 'blocker') await new Promise<void>((r) => (release = r));
      },
      { now: () => clock },
    );
    expect([q.depth, q.oldestWaitMs()]).toEqual([0, 0]);
    q.add('blocker');
    await started();
    expect(q.depth).toBe(0);
    q.addBackground('a');
    clock += 500;
    q.add('b');
    q.add('a'); // moved to the urgent lane: it keeps the time it was first queued
    clock += 250;
    expect([q.depth, q.oldestWaitMs()]).toEqual([2, 750]);
    release();
    await q.idle();
    expect([q.depth, q.oldestWaitMs()]).toEqual([0, 0]);
  });

  it('reports each reconcile as success, requeue or error with its run time and wait', async () => {
    let clock = 0;
    const seen: Array<[string, number, number]> = [];
    const q = new WorkQueue(
      async (k) => {
        await tick();
        clock += 40;
        if (k === 'bad') throw new Error('no');
        return k === 'later' ? { requeueAfterMs: 60_000 } : undefined;
      },
      {
        now: () => clock,
        baseBackoffMs: 60_000,
        observer: { reconciled: (o, ms, waited) => seen.push([o, ms, waited]) },
      },
    );
    q.add('ok'); // runs at once; the next two wait for it
    clock += 10;
    q.add('later');
    q.add('bad');
    await q.idle();
    await q.stop();
    expect(seen).toEqual([
      ['success', 50, 0],
      ['requeue', 40, 40],
      ['error', 40, 80],
    ]);
  });
});
