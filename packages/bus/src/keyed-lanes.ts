/**
 * Runs tasks with at most `limit` at once, and the tasks of one key one after another in the order they were added:
 * what keeps per-object order while objects are handled in parallel.
 */
export class KeyedLanes {
  private readonly tails = new Map<string, Promise<void>>();
  private readonly waiting: Array<() => void> = [];
  private running = 0;

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`);
  }

  /** Tasks added and not yet finished. */
  get size(): number {
    return this.running;
  }

  /**
   * Waits for a free slot, then queues `task` behind the earlier tasks of `key` and returns; the task's own outcome
   * is not reported here (it must handle its errors), so a caller can keep adding while it runs.
   */
  async add(key: string, task: () => Promise<void>): Promise<void> {
    while (this.running >= this.limit) await new Promise<void>((r) => this.waiting.push(r));
    this.running++;
    const previous = this.tails.get(key) ?? Promise.resolve();
    const tail = previous.then(task).catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      this.running--;
      if (this.tails.get(key) === tail) this.tails.delete(key);
      this.waiting.shift()?.();
    });
  }

  /** Resolves when every task added so far has finished. */
  async drain(): Promise<void> {
    while (this.tails.size) await Promise.all([...this.tails.values()]);
  }
}
