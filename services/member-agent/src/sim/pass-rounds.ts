import type { Bus } from '@flotilla/bus';
import type { PassReports, PassRounds } from '../kube/kube-driver.js';
import { publishReports } from '../publish-reports.js';
import { combineWorkloadReports, type Report } from '../reports.js';

/** The rounds' defaults, defined once. */
export const FLEET_ROUNDS_DEFAULTS = Object.freeze({
  /** A round opens this long after the one before it at the earliest (the changes of a burst gather meanwhile). */
  gatherMs: 500,
  /**
   * A round whose passes run longer than this publishes what its ended passes reported and lets the next one open:
   * one slow pass holds the others' reports up this long at most (and so for passes outside the rounds).
   */
  holdMaxMs: 10_000,
});

export interface FleetRoundsOptions {
  bus: Bus;
  /** How long after a round opened the next opens at the earliest, on a grid of this period. */
  gatherMs?: number;
  /** How long a round's reports wait for its slowest pass at most. */
  holdMaxMs?: number;
}

/** How many drivers' passes a round begins in one turn of the event loop. */
const OPEN_SLICE = 10;

interface Held {
  reports: readonly Report[];
  stopped: () => boolean;
  done(err?: unknown): void;
}

/**
 * The simulated fleet's rounds (the kube driver's `PassRounds`), as the tick loop had one pass of every cluster a
 * tick: the drivers a change woke join the next round; it opens on a grid of `gatherMs` once the one before it is
 * published, every driver takes what its pass looks at in that turn, and their passes begin ten drivers a turn. When
 * the last of them ended, their reports are published together, pipelined, a binding's clusters' reports as one
 * WorkloadStatusReported (combineWorkloadReports), which the status writer folds in one write. Passes that run
 * outside the rounds (a driver's first, `reconcileNow`) are published together once the last of them ended.
 */
export class FleetRounds implements PassRounds {
  private readonly gatherMs: number;
  private readonly holdMaxMs: number;
  private joined: Array<() => (() => void) | undefined> = [];
  /** The reports the round's passes handed in, held until it is published. */
  private batch: Held[] = [];
  /** The reports passes outside the rounds handed in, held until the last of them ended. */
  private outsideBatch: Held[] = [];
  /** The round's passes begun and not ended. */
  private running = 0;
  /** Passes outside the rounds begun and not ended. */
  private outsideRunning = 0;
  private outsideTimer: NodeJS.Timeout | undefined;
  /** `waiting`: a round is due on its timer; `open`: its passes run; `publishing`: its reports are being sent. */
  private state: 'idle' | 'waiting' | 'open' | 'publishing' = 'idle';
  private lastOpenMs = Number.NEGATIVE_INFINITY;
  private openTimer: NodeJS.Timeout | undefined;
  private holdTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** While a round's passes are being queued, a slice a turn. */
  private opening = false;
  /** How many rounds opened (for tests). */
  rounds = 0;

  constructor(private readonly o: FleetRoundsOptions) {
    this.gatherMs = o.gatherMs ?? FLEET_ROUNDS_DEFAULTS.gatherMs;
    this.holdMaxMs = o.holdMaxMs ?? FLEET_ROUNDS_DEFAULTS.holdMaxMs;
    for (const [name, v] of [
      ['gatherMs', this.gatherMs],
      ['holdMaxMs', this.holdMaxMs],
    ] as const)
      if (!Number.isInteger(v) || v <= 0) throw new RangeError(`${name}: expected a positive integer, got ${v}`);
  }

  join(open: () => (() => void) | undefined): void {
    if (this.stopped) return;
    this.joined.push(open);
    this.scheduleRound();
  }

  begin(): PassReports {
    this.running++;
    return this.ticket(
      () => this.passEnded(),
      (held) => {
        // Ended after its round was published (the round gave up on it after holdMaxMs): held as long at most.
        if (this.batch.length === 0 && this.state !== 'open')
          this.holdTimer ??= setTimeout(() => void this.publishHeld(), this.holdMaxMs);
        this.batch.push(held);
      },
    );
  }

  /**
   * A pass no round queued (a driver's first, `reconcileNow`): its reports are published with those of the other
   * passes outside the rounds that run with it, once the last of them ended, never held for a round. A round may
   * hold the pass queued behind it (the driver's next, queued by the round while this one runs), so its reports
   * waiting for that round would wait for themselves (holdMaxMs).
   */
  beginOutside(): PassReports {
    this.outsideRunning++;
    return this.ticket(
      () => this.outsidePassEnded(),
      (held) => {
        this.outsideTimer ??= setTimeout(() => void this.publishOutside(), this.holdMaxMs);
        this.outsideBatch.push(held);
      },
    );
  }

  private ticket(ended: () => void, hold: (held: Held) => void): PassReports {
    let over = false;
    const end = () => {
      if (over) return;
      over = true;
      ended();
    };
    return {
      publish: (reports, stopped) => {
        if (reports.length === 0) {
          end();
          return Promise.resolve(0);
        }
        return new Promise<number>((resolve, reject) => {
          hold({ reports, stopped, done: (err) => (err === undefined ? resolve(reports.length) : reject(err)) });
          end();
        });
      },
      end,
    };
  }

  /** No round opens any more; what passes still hand in is published as they end. */
  stop(): void {
    this.stopped = true;
    if (this.openTimer) clearTimeout(this.openTimer);
    this.openTimer = undefined;
    this.joined = [];
  }

  private scheduleRound(): void {
    if (this.state !== 'idle' || this.joined.length === 0 || this.stopped) return;
    this.state = 'waiting';
    const now = Date.now();
    const earliest = Math.max(now, this.lastOpenMs + this.gatherMs);
    // On the grid: the changes of a burst that began just now gather until its next point.
    const at = earliest + ((this.gatherMs - (earliest % this.gatherMs)) % this.gatherMs);
    this.openTimer = setTimeout(() => void this.open(), at - now);
  }

  private async open(): Promise<void> {
    this.openTimer = undefined;
    if (this.stopped) return;
    this.state = 'open';
    this.rounds++;
    this.lastOpenMs = Date.now();
    const opening = this.joined;
    this.joined = [];
    // Every driver takes what its pass looks at in this turn: a binding's clusters take its change alike.
    const starts = opening.flatMap((take) => take() ?? []);
    // Each queues its driver's pass, which begins its ticket before the call returns. A pass decides and writes
    // before its first turn ends, so the drivers' passes begin a slice a turn: a round of a hundred clusters' passes
    // begun in one turn held the event loop past a second. The round ends only once every slice began.
    this.opening = true;
    for (let i = 0; i < starts.length; i += OPEN_SLICE) {
      if (i > 0) await new Promise((r) => setImmediate(r));
      for (const queuePass of starts.slice(i, i + OPEN_SLICE)) queuePass();
    }
    this.opening = false;
    if (this.holdTimer) clearTimeout(this.holdTimer);
    this.holdTimer = setTimeout(() => void this.endRound(), this.holdMaxMs);
    setImmediate(() => {
      if (this.running === 0) void this.endRound();
    });
  }

  private outsidePassEnded(): void {
    if (--this.outsideRunning > 0) return;
    setImmediate(() => {
      if (this.outsideRunning === 0) void this.publishOutside();
    });
  }

  private async publishOutside(): Promise<void> {
    if (this.outsideTimer) clearTimeout(this.outsideTimer);
    this.outsideTimer = undefined;
    const taken = this.outsideBatch;
    this.outsideBatch = [];
    await this.publishBatch(taken);
  }

  /** Once no pass runs at the end of a turn (the dirty re-run of a pass busy when the round opened begins within it). */
  private passEnded(): void {
    if (--this.running > 0) return;
    setImmediate(() => {
      if (this.running > 0) return;
      if (this.state === 'open') {
        if (!this.opening) void this.endRound();
      } else if (this.state !== 'publishing') void this.publishHeld();
    });
  }

  private async endRound(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'publishing';
    await this.publishHeld();
    this.state = 'idle';
    // Passes that ran outside the round and ended while its reports were sent.
    if (this.running === 0 && this.batch.length > 0) await this.publishHeld();
    this.scheduleRound();
  }

  /** Publishes what the round's passes handed in so far (the passes still running hand theirs to the next batch). */
  private async publishHeld(): Promise<void> {
    if (this.holdTimer) clearTimeout(this.holdTimer);
    this.holdTimer = undefined;
    const taken = this.batch;
    this.batch = [];
    await this.publishBatch(taken);
  }

  private async publishBatch(taken: readonly Held[]): Promise<void> {
    if (taken.length === 0) return;
    const live = taken.filter((t) => !t.stopped());
    try {
      await publishReports({
        bus: this.o.bus,
        reports: combineWorkloadReports(live.flatMap((t) => t.reports)),
        stopped: () => false,
      });
      for (const t of taken) t.done();
    } catch (err) {
      // What failed is not committed: each pass offers it again (the driver retries with backoff).
      for (const t of taken) t.done(err);
    }
  }
}
