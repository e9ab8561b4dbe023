/**
 * Visits every key once per period, a slice per tick, instead of all at once: a resync over 10,000 keys becomes a
 * few hundred reconciles a second rather than a ten-thousand-key burst that holds up everything else.
 */
export class SpreadSweep {
  private pending: string[] = [];
  private perTick = 0;
  private timer?: NodeJS.Timeout;
  private readonly tickMs: number;

  constructor(
    private readonly o: {
      /** The keys of one pass, read when a pass begins. */
      keys: () => Iterable<string>;
      periodMs: number;
      tickMs?: number;
      visit: (key: string) => void;
    },
  ) {
    this.tickMs = Math.min(o.tickMs ?? 1000, o.periodMs);
  }

  start(): void {
    this.timer ??= setInterval(() => this.tick(), this.tickMs);
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.pending = [];
  }

  /** One slice of the current pass (a new pass begins when the last one is done). */
  tick(): void {
    if (this.pending.length === 0) {
      this.pending = [...this.o.keys()];
      this.perTick = Math.ceil((this.pending.length * this.tickMs) / this.o.periodMs);
    }
    for (const key of this.pending.splice(0, this.perTick)) this.o.visit(key);
  }
}
