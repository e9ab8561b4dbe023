/** A barrier on passes that the controller was stopped before it could complete. */
export class PassesStoppedError extends Error {
  constructor(readonly controller: string) {
    super(`${controller}: stopped before the pass completed`);
    this.name = 'PassesStoppedError';
  }
}

export function isPassesStopped(err: unknown): err is PassesStoppedError {
  return err instanceof PassesStoppedError;
}

/**
 * Passes over every key (the start, each resync, a sweep a watch asked for) and when each is complete: every key it
 * visited has finished a reconcile that began after the visit (a failed one counts: the key was looked at). The
 * barrier for "nothing more happens": a test waits for a pass that began after its last change, then asserts,
 * instead of sleeping for "a few resync periods". Passes complete in the order they began.
 */
export class ReconcilePasses {
  private begunCount = 0;
  private completedCount = 0;
  /** The last pass that completed or was given up at a stop; the passes complete in order behind it. */
  private through = 0;
  /** The pass still visiting keys, 0 when none is. */
  private visiting = 0;
  /**
   * Each key still to be reconciled and the passes that visited it since its last reconcile began, oldest first: a
   * key visited by two passes before a reconcile keeps both waiting for it (moving it to the later pass alone let the
   * earlier one complete before the key was reconciled, which a busy machine showed in the define-controller test).
   */
  private readonly pendingKeys = new Map<string, number[]>();
  /** Keys still to be reconciled per pass. */
  private readonly pendingPerPass = new Map<number, number>();
  private waiters: Array<{ pass: number; resolve(): void; reject(err: Error): void }> = [];
  /** Stopped and not begun again: no pass will complete. */
  private stopped = false;

  constructor(
    private readonly o: {
      controller: string;
      /** Told of each pass that begins and each that completes (metrics). */
      onBegin?: () => void;
      onComplete?: () => void;
    },
  ) {}

  get begun(): number {
    return this.begunCount;
  }

  get completed(): number {
    return this.completedCount;
  }

  /** A pass begins: the keys `visit`ed until `endVisits` are its own. */
  begin(): void {
    this.stopped = false;
    this.endVisits();
    this.visiting = ++this.begunCount;
    this.o.onBegin?.();
  }

  /** The current pass queued `key`. */
  visit(key: string): void {
    if (this.visiting === 0) return;
    const passes = this.pendingKeys.get(key) ?? [];
    if (passes.at(-1) === this.visiting) return; // visited twice by one pass
    passes.push(this.visiting);
    this.pendingKeys.set(key, passes);
    this.pendingPerPass.set(this.visiting, (this.pendingPerPass.get(this.visiting) ?? 0) + 1);
  }

  /** The current pass has visited all its keys. */
  endVisits(): void {
    this.visiting = 0;
    this.advance();
  }

  /**
   * A reconcile of `key` begins: the returned function is called when it ends, and counts it for the pass that had
   * visited the key before it began (a reconcile already running when the key was visited does not count).
   */
  reconcileBegins(key: string): () => void {
    const covered = this.pendingKeys.get(key)?.slice();
    if (!covered?.length) return () => undefined;
    // The passes that visited the key before this reconcile began; one that visits it meanwhile waits for the next.
    return () => {
      for (const pass of covered) this.forget(key, pass);
      this.advance();
    };
  }

  /** Resolves once a pass that begins after this call has completed. */
  next(): Promise<void> {
    return this.reached(this.begunCount + 1);
  }

  /** Resolves once pass number `pass` (counted from 1 at the first `begin`) has completed; rejects while stopped. */
  reached(pass: number): Promise<void> {
    if (this.through >= pass) return Promise.resolve();
    if (this.stopped) return Promise.reject(new PassesStoppedError(this.o.controller));
    return new Promise((resolve, reject) => this.waiters.push({ pass, resolve, reject }));
  }

  /** The controller stopped: no pass completes any more; waiters fail with PassesStoppedError. */
  stop(): void {
    this.stopped = true;
    this.visiting = 0;
    this.pendingKeys.clear();
    this.pendingPerPass.clear();
    // Passes begun and not completed never will: they stay uncompleted in the counts (which only grow), and a start
    // after this stop begins its passes behind them.
    this.through = this.begunCount;
    for (const w of this.waiters.splice(0)) w.reject(new PassesStoppedError(this.o.controller));
  }

  /** `key` no longer keeps `pass` waiting (nothing if it did not: a stop since, or already counted). */
  private forget(key: string, pass: number): void {
    const passes = this.pendingKeys.get(key);
    const at = passes?.indexOf(pass) ?? -1;
    if (!passes || at < 0) return;
    passes.splice(at, 1);
    if (passes.length === 0) this.pendingKeys.delete(key);
    const left = (this.pendingPerPass.get(pass) ?? 1) - 1;
    if (left > 0) this.pendingPerPass.set(pass, left);
    else this.pendingPerPass.delete(pass);
  }

  private advance(): void {
    while (
      this.through < this.begunCount &&
      this.through + 1 !== this.visiting &&
      !this.pendingPerPass.has(this.through + 1)
    ) {
      this.through++;
      this.completedCount++;
      this.o.onComplete?.();
    }
    if (this.waiters.length === 0) return;
    const still: typeof this.waiters = [];
    for (const w of this.waiters) {
      if (this.through >= w.pass) w.resolve();
      else still.push(w);
    }
    this.waiters = still;
  }
}
