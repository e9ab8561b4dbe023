import { MAX_TIMER_MS } from './max-timer.js';

/** What a reconcile asks for next: nothing, or another run after a delay (time-based work). */
export type ReconcileResult = undefined | { requeueAfterMs: number };

export interface WorkQueueOptions {
  /** Keys reconciled at once; one key is never reconciled twice at the same time. */
  concurrency?: number;
  /** First retry delay after a failure; doubles per consecutive failure of the key, up to maxBackoffMs. */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  onError?: (key: string, err: unknown, attempt: number) => void;
  /** Told of every finished reconcile: what became of it, how long it ran and how long the key had waited. */
  observer?: WorkQueueObserver;
  /** Milliseconds since the epoch; Date.now by default. */
  now?: () => number;
  /**
   * The priority of a key, asked when it is queued: a higher one is reconciled first, keys of equal priority first in
   * first out (Karmada's PriorityBasedScheduling: bindings by their schedulePriority). Without it, every key is 0.
   */
  priorityOf?: (key: string) => number;
}

/** How a reconcile ended: done, done but asking to run again later, or failed (and retried with backoff). */
export type ReconcileOutcome = 'success' | 'requeue' | 'error';

export interface WorkQueueObserver {
  reconciled(outcome: ReconcileOutcome, durationMs: number, waitedMs: number): void;
}

/** A first-in first-out queue of keys with O(1) removal from the front (Array.shift is O(n)). */
class KeyFifo {
  private items: string[] = [];
  private head = 0;

  push(key: string): void {
    this.items.push(key);
  }

  shift(): string | undefined {
    if (this.head >= this.items.length) return undefined;
    const key = this.items[this.head++];
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return key;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}

/**
 * Keys by priority, each priority first in first out: the highest priority with keys gives the next. Without
 * priorities (every key 0) it is one FIFO.
 */
class PriorityFifo {
  private readonly fifos = new Map<number, KeyFifo>();
  /** The priorities with a FIFO, highest first. */
  private priorities: number[] = [];

  push(key: string, priority: number): void {
    let fifo = this.fifos.get(priority);
    if (!fifo) {
      fifo = new KeyFifo();
      this.fifos.set(priority, fifo);
      this.priorities = [...this.priorities, priority].sort((a, b) => b - a);
    }
    fifo.push(key);
  }

  shift(): string | undefined {
    while (this.priorities.length) {
      const priority = this.priorities[0]!;
      const key = this.fifos.get(priority)!.shift();
      if (key !== undefined) return key;
      // Drained: a priority seen once does not stay in every later pick's way.
      this.fifos.delete(priority);
      this.priorities = this.priorities.slice(1);
    }
    return undefined;
  }

  clear(): void {
    this.fifos.clear();
    this.priorities = [];
  }
}

/** Out of every this many picks, one goes to background work even while changes keep coming. */
const BACKGROUND_SHARE = 8;

/**
 * client-go's workqueue in miniature: a key added while queued is queued once; a key added while being reconciled
 * runs again afterwards (so no change is missed); failures retry with exponential backoff.
 * Two lanes: `add` for a change of the key's own objects, `addBackground` for sweeps over every key (a periodic
 * resync, a policy or cluster change that touches all of them). Changes go first, so a sweep over 10,000 keys
 * does not hold up the one object just applied; a share of the slots still goes to the sweep so it always ends.
 */
export class WorkQueue {
  private readonly urgent = new PriorityFifo();
  private readonly background = new PriorityFifo();
  /** Queued keys and their lane; a key in a lane's FIFO but not here (or in the other lane) is a stale entry. */
  private readonly queued = new Map<string, 'urgent' | 'background'>();
  /** When each queued key was queued; insertion order, so the first entry is the one waiting longest. */
  private readonly queuedAt = new Map<string, number>();
  private queuedUrgent = 0;
  private readonly active = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly idleWaiters: Array<() => void> = [];
  private running = 0;
  /** While above 0, keys are queued and none started (`together`). */
  private holding = 0;
  private picks = 0;
  private stopped = false;
  private readonly concurrency: number;
  private readonly now: () => number;

  /**
   * `reconcile` gets the key and when it was queued (ms since the epoch), for end-to-end latency. `Promise<void>`
   * admits reconciles that never requeue, written as `async` functions that return nothing.
   */
  constructor(
    private readonly reconcile: (key: string, queuedAtMs: number) => Promise<ReconcileResult> | Promise<void>,
    private readonly opts: WorkQueueOptions = {},
  ) {
    this.concurrency = opts.concurrency ?? 1;
    this.now = opts.now ?? Date.now;
  }

  /** Queues the key in the urgent lane (moving it there if it waits in the background lane). */
  add(key: string): void {
    if (this.stopped) return;
    if (this.active.has(key)) {
      this.dirty.add(key);
      return;
    }
    const lane = this.queued.get(key);
    if (lane === 'urgent') return;
    const priority = this.priorityOf(key);
    if (lane === undefined) this.queuedAt.set(key, this.now());
    this.queued.set(key, 'urgent');
    this.queuedUrgent++;
    this.urgent.push(key, priority);
    this.pump();
  }

  /** Queues the key in the background lane unless it is queued already; a running key runs again afterwards. */
  addBackground(key: string): void {
    if (this.stopped || this.queued.has(key)) return;
    if (this.active.has(key)) {
      // That run may have read its inputs before the change that caused this sweep.
      this.dirty.add(key);
      return;
    }
    const priority = this.priorityOf(key);
    this.queued.set(key, 'background');
    this.queuedAt.set(key, this.now());
    this.background.push(key, priority);
    this.pump();
  }

  /**
   * Queues what `fill` adds before any of it starts, so that priorities order the whole of it (a pass over every key:
   * started one by one as they were added, the first ones would run in the order they came).
   */
  together(fill: () => void): void {
    this.holding++;
    try {
      fill();
    } finally {
      this.holding--;
      this.pump();
    }
  }

  /**
   * Adds the key after a delay; an earlier pending delay for the key is replaced. A delay beyond what a timer can
   * hold (about 24.8 days; Node would fire it after 1 ms) waits that long and then looks again.
   */
  addAfter(key: string, ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(
        () => {
          this.timers.delete(key);
          this.add(key);
        },
        Math.min(Math.max(0, ms), MAX_TIMER_MS),
      ),
    );
  }

  /**
   * The key's priority, asked before any of the queue's books change: a priorityOf that throws (or answers no number)
   * queues the key at 0 and is told as the key's error, rather than leaving it counted as queued in no lane.
   */
  private priorityOf(key: string): number {
    try {
      const p = this.opts.priorityOf?.(key) ?? 0;
      return Number.isFinite(p) ? p : 0;
    } catch (err) {
      this.opts.onError?.(key, err, 0);
      return 0;
    }
  }

  get length(): number {
    return this.queued.size + this.running;
  }

  /** Keys waiting for a reconcile (client-go's workqueue depth): running and delayed keys do not count. */
  get depth(): number {
    return this.queued.size;
  }

  /** How long the key that has waited longest has been waiting, in milliseconds; 0 when none waits. */
  oldestWaitMs(): number {
    for (const at of this.queuedAt.values()) return Math.max(0, this.now() - at);
    return 0;
  }

  /** Resolves when nothing is queued or running (delayed keys do not count). */
  idle(): Promise<void> {
    if (this.length === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  /** Stops taking work, cancels delayed keys, and waits for running reconciles to end. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.urgent.clear();
    this.background.clear();
    this.queued.clear();
    this.queuedAt.clear();
    this.queuedUrgent = 0;
    await this.idle();
  }

  private pump(): void {
    if (this.holding > 0) return;
    while (!this.stopped && this.running < this.concurrency && this.queued.size) {
      const key = this.next();
      const lane = this.queued.get(key)!;
      const queuedAt = this.queuedAt.get(key) ?? this.now();
      this.queued.delete(key);
      this.queuedAt.delete(key);
      this.active.add(key);
      this.running++;
      void this.run(key, lane, queuedAt);
    }
    if (this.length === 0) for (const w of this.idleWaiters.splice(0)) w();
  }

  /** The next queued key: urgent first, but every BACKGROUND_SHARE-th pick from the background lane if it has any. */
  private next(): string {
    const backgroundTurn = ++this.picks % BACKGROUND_SHARE === 0;
    const hasBackground = this.queued.size > this.queuedUrgent;
    if (this.queuedUrgent > 0 && !(backgroundTurn && hasBackground)) {
      for (let key = this.urgent.shift(); key !== undefined; key = this.urgent.shift()) {
        if (this.queued.get(key) === 'urgent') {
          this.queuedUrgent--;
          return key;
        }
      }
    }
    for (let key = this.background.shift(); key !== undefined; key = this.background.shift()) {
      if (this.queued.get(key) === 'background') return key;
    }
    throw new Error('work queue bookkeeping: a key is counted as queued but is in neither lane');
  }

  private async run(key: string, lane: 'urgent' | 'background', queuedAt: number): Promise<void> {
    let started = queuedAt;
    try {
      // A sweep's reconciles mostly find nothing to write, so they resolve in microtasks, one after another: without
      // a turn of the event loop each, a sweep over thousands of keys would hold off every socket read (the
      // informers' news) until it ended. Changes skip it: they were just read off a socket and usually write.
      if (lane === 'background') await new Promise((r) => setImmediate(r));
      if (this.stopped) return;
      started = this.now();
      const r = await this.reconcile(key, queuedAt);
      this.failures.delete(key);
      const requeue = r && 'requeueAfterMs' in r;
      if (requeue) this.addAfter(key, r.requeueAfterMs);
      this.opts.observer?.reconciled(requeue ? 'requeue' : 'success', this.now() - started, started - queuedAt);
    } catch (err) {
      this.opts.observer?.reconciled('error', this.now() - started, started - queuedAt);
      const attempt = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, attempt);
      this.opts.onError?.(key, err, attempt);
      const base = this.opts.baseBackoffMs ?? 100;
      this.addAfter(key, Math.min(this.opts.maxBackoffMs ?? 30_000, base * 2 ** (attempt - 1)));
    } finally {
      this.active.delete(key);
      this.running--;
      if (this.dirty.delete(key)) this.add(key);
      this.pump();
    }
  }
}
