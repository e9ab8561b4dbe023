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

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`);
  }

  /** Tasks added and not yet finished, running or waiting. */
  get size(): number {
    return this.queued;
  }

  /** Queues `task` behind the earlier tasks of `key`; its outcome is not reported here (it must handle its errors). */
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
        .catch(() => undefined)
        .then(() => this.finished(key));
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
