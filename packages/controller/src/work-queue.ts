/** What a reconcile asks for next: nothing, or another run after a delay (time-based work). */
export type ReconcileResult = void | { requeueAfterMs: number };

export interface WorkQueueOptions {
  /** Keys reconciled at once; one key is never reconciled twice at the same time. */
  concurrency?: number;
  /** First retry delay after a failure; doubles per consecutive failure of the key, up to maxBackoffMs. */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  onError?: (key: string, err: unknown, attempt: number) => void;
}

/**
 * client-go's workqueue in miniature: a key added while queued is queued once; a key added while being reconciled
 * runs again afterwards (so no change is missed); failures retry with exponential backoff.
 */
export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private readonly active = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly idleWaiters: Array<() => void> = [];
  private running = 0;
  private stopped = false;
  private readonly concurrency: number;

  constructor(private readonly reconcile: (key: string) => Promise<ReconcileResult>, private readonly opts: WorkQueueOptions = {}) {
    this.concurrency = opts.concurrency ?? 1;
  }

  add(key: string): void {
    if (this.stopped) return;
    if (this.active.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.queue.push(key);
    this.pump();
  }

  /** Adds the key after a delay; an earlier pending delay for the key is replaced. */
  addAfter(key: string, ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        this.add(key);
      }, Math.max(0, ms)),
    );
  }

  get length(): number {
    return this.queue.length + this.running;
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
    this.queue.length = 0;
    this.queued.clear();
    await this.idle();
  }

  private pump(): void {
    while (!this.stopped && this.running < this.concurrency && this.queue.length) {
      const key = this.queue.shift()!;
      this.queued.delete(key);
      this.active.add(key);
      this.running++;
      void this.run(key);
    }
    if (this.length === 0) for (const w of this.idleWaiters.splice(0)) w();
  }

  private async run(key: string): Promise<void> {
    try {
      const r = await this.reconcile(key);
      this.failures.delete(key);
      if (r && 'requeueAfterMs' in r) this.addAfter(key, r.requeueAfterMs);
    } catch (err) {
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
