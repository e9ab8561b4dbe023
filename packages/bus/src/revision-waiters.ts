/**
 * Callers waiting for a follower of a stream (an informer, a revision watch) to reach a revision, each with its own
 * deadline: `wait` resolves true once `reach` passes its revision, false at its deadline or on `cancelAll`.
 */
export class RevisionWaiters {
  private readonly waiting = new Set<{ revision: number; done: (reached: boolean) => void }>();

  /** Waits for `revision`; `timeoutMs` may be Infinity. */
  wait(revision: number, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const waiter = {
        revision,
        done: (reached: boolean) => {
          clearTimeout(timer);
          this.waiting.delete(waiter);
          resolve(reached);
        },
      };
      const timer = Number.isFinite(timeoutMs) ? setTimeout(() => waiter.done(false), timeoutMs) : undefined;
      this.waiting.add(waiter);
    });
  }

  /** The follower has reached `revision`: those waiting for it or less go on. */
  reach(revision: number): void {
    for (const w of [...this.waiting]) if (w.revision <= revision) w.done(true);
  }

  /** The follower stopped following: every wait ends false. */
  cancelAll(): void {
    for (const w of [...this.waiting]) w.done(false);
  }
}
