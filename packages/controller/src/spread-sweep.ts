/**
 * Visits every key once per period, a slice per tick, instead of all at once: a resync over 10,000 keys becomes a
 * few hundred reconciles a second rather than a ten-thousand-key burst that holds up everything else.
 */
export class SpreadSweep {
  private pending: string[] = [];
  private perTick = 0;
  /** Ticks since the current pass began; a pass begins no sooner than a period after the last one. */
  private ticksIntoPass = Infinity;
  /** A pass has begun and not yet visited all its keys. */
  private inPass = false;
  private timer?: NodeJS.Timeout;
  private readonly tickMs: number;
  private readonly ticksPerPeriod: number;

  constructor(
    private readonly o: {
      /** The keys of one pass, read when a pass begins. */
      keys: () => Iterable<string>;
      periodMs: number;
      tickMs?: number;
      visit: (key: string) => void;
      /** A pass begins (before its first visit) and has visited every key (after its last): for pass barriers. */
      onPassBegin?: () => void;
      onPassEnd?: () => void;
    },
  ) {
    this.tickMs = Math.min(o.tickMs ?? 1000, o.periodMs);
    this.ticksPerPeriod = Math.max(1, Math.round(o.periodMs / this.tickMs));
  }

  start(): void {
    this.timer ??= setInterval(() => this.tick(), this.tickMs);
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.pending = [];
    this.ticksIntoPass = Infinity;
    this.inPass = false;
  }

  /**
   * One slice of the current pass. A new pass begins a period after the last one began (with fewer keys than
   * ticks in a period, a pass ends early and the sweep waits rather than visiting each key more often).
   */
  tick(): void {
    if (this.pending.length === 0 && this.ticksIntoPass >= this.ticksPerPeriod) {
      this.pending = [...this.o.keys()];
      this.perTick = Math.ceil((this.pending.length * this.tickMs) / this.o.periodMs);
      this.ticksIntoPass = 0;
      this.inPass = true;
      this.o.onPassBegin?.();
    }
    this.ticksIntoPass++;
    for (const key of this.pending.splice(0, this.perTick)) this.o.visit(key);
    if (this.inPass && this.pending.length === 0) {
      this.inPass = false;
      this.o.onPassEnd?.();
    }
  }
}
