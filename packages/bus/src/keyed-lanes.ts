export interface KeyedLanesOptions {
  /** Tasks running at once (a positive integer). */
  limit: number;
  /**
   * Told of a task that rejected, with its key; the key's next task runs all the same. A task should handle its own
   * errors: what comes here is what it did not (nothing is dropped without a word).
   */
  onError: (err: unknown, key: string) => void;
}

/**
 * Runs tasks with at most `limit` at once, and the tasks of one key one after another in the order they were added:
 * what keeps per-object order while objects are handled in parallel. Only running tasks take a slot, so a key with
 * a long or stuck backlog holds one slot, never the others' (what waits is bounded by whoever adds).
 */
export class KeyedLanes {
  /** Per key with work: its tasks in order; the first is running or ready to run. */
  private readonly lanes = new Map<string, Array<() => Promise<void>>>();
  /** Keys whose first task may start, in the order they became ready. */
  private ready: string[] = [];
  private running = 0;
  private queued = 0;
  private readonly drained: Array<() => void> = [];

  private readonly limit: number;
  private readonly onError: KeyedLanesOptions['onError'];

  constructor(o: KeyedLanesOptions) {
    if (!Number.isInteger(o.limit) || o.limit < 1)
      throw new RangeError(`limit must be a positive integer, got ${o.limit}`);
    this.limit = o.limit;
    this.onError = o.onError;
  }

  /** Tasks added and not yet finished, running or waiting. */
  get size(): number {
    return this.queued;
  }

  /** Queues `task` behind the earlier tasks of `key`; a rejection goes to `onError`. */
  add(key: string, task: () => Promise<void>): void {
    this.queued++;
    const lane = this.lanes.get(key);
    if (lane) {
      lane.push(task);
      return;
    }
    this.lanes.set(key, [task]);
    this.ready.push(key);
    this.pump();
  }

  /** Resolves when every task added so far has finished. */
  drain(): Promise<void> {
    if (this.queued === 0) return Promise.resolve();
    return new Promise((r) => this.drained.push(r));
  }

  private pump(): void {
    while (this.running < this.limit && this.ready.length) {
      const key = this.ready.shift()!;
      const task = this.lanes.get(key)![0]!;
      this.running++;
      void task()
        .catch((err: unknown) => this.reportError(err, key))
        .then(() => this.finished(key));
    }
  }

  private reportError(err: unknown, key: string): void {
    try {
      this.onError(err, key);
    } catch {
      // A reporter that throws must not stop the lane: the next task of the key still runs.
    }
  }

  private finished(key: string): void {
    this.running--;
    this.queued--;
    const lane = this.lanes.get(key)!;
    lane.shift();
    if (lane.length) this.ready.push(key);
    else this.lanes.delete(key);
    this.pump();
    if (this.queued === 0) for (const r of this.drained.splice(0)) r();
  }
}
