/** Where a gate goes: the runtime's ReadinessGates has this shape. */
export interface GateSink {
  set(gate: string, open: boolean, reason?: string): void;
}

/** What a gate that has seen failures should say now. */
export interface GateFailureState {
  /** A success was seen since the gate began (the first list, the first check). */
  everOk: boolean;
  /** When the current run of failures began (no success since); undefined while none fails. */
  failingSinceMs: number | undefined;
  nowMs: number;
  graceMs: number;
}

/**
 * Whether a gate is open: closed before the first success (the replica is still starting), and afterwards only once
 * failures have gone on for `graceMs` with no success between, so that one failed request does not flap readiness.
 */
export function gateOpen(s: GateFailureState): boolean {
  if (!s.everOk) return false;
  if (s.failingSinceMs === undefined) return true;
  return s.nowMs - s.failingSinceMs < s.graceMs;
}

export interface GracefulGateOptions {
  sink: GateSink;
  /** The gate's name in /readyz. */
  gate: string;
  /** How long failures may go on, after a success, before the gate closes. */
  graceMs: number;
  /** Until the first success, the reason the closed gate gives. */
  startingReason: string;
  /** It already worked before the gate was made (checked at start): open from the beginning. */
  startsOk?: boolean;
  now?: () => number;
}

/**
 * A readiness gate over something that fails now and then (a list-and-watch, a periodic check): closed until the
 * first success; afterwards closed only once failures have lasted `graceMs` (gateOpen), with the last failure's
 * reason; open again at the next success.
 */
export class GracefulGate {
  private everOk = false;
  private failingSinceMs: number | undefined;
  private reason: string;
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  constructor(private readonly o: GracefulGateOptions) {
    if (!(o.graceMs >= 0)) throw new RangeError(`graceMs: expected milliseconds >= 0, got ${o.graceMs}`);
    this.now = o.now ?? Date.now;
    this.reason = o.startingReason;
    this.everOk = o.startsOk ?? false;
    this.apply();
  }

  /** It worked: the gate opens. */
  ok(): void {
    this.everOk = true;
    this.failingSinceMs = undefined;
    this.clearTimer();
    this.apply();
  }

  /** It failed: the gate closes now if it never worked, else once failures have lasted the grace. */
  failed(reason: string): void {
    this.reason = reason;
    this.failingSinceMs ??= this.now();
    this.apply();
    if (this.everOk && this.timer === undefined && gateOpen(this.state())) {
      const leftMs = this.failingSinceMs + this.o.graceMs - this.now();
      this.timer = setTimeout(
        () => {
          this.timer = undefined;
          this.apply();
        },
        Math.max(0, leftMs),
      );
      this.timer.unref?.();
    }
  }

  /** Starting over (a restart of what it watches): closed until the next success, with `reason`. */
  reset(reason: string): void {
    this.everOk = false;
    this.failingSinceMs = undefined;
    this.reason = reason;
    this.clearTimer();
    this.apply();
  }

  /** Nothing depends on it any more (stopped): the gate opens and forgets. */
  release(): void {
    this.clearTimer();
    this.o.sink.set(this.o.gate, true);
  }

  private state(): GateFailureState {
    return {
      everOk: this.everOk,
      failingSinceMs: this.failingSinceMs,
      nowMs: this.now(),
      graceMs: this.o.graceMs,
    };
  }

  private apply(): void {
    const open = gateOpen(this.state());
    if (open) this.o.sink.set(this.o.gate, true);
    else this.o.sink.set(this.o.gate, false, this.reason);
  }

  private clearTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
