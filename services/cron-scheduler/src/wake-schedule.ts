import { MAX_TIMER_MS } from '@flotilla/controller';
import type { Clock } from '@flotilla/runtime';

/**
 * When to wake which object: each key waits for one instant, and each instant has one local timer however many
 * keys wait for it, so a burst of objects due at the same second costs one timer. A key is woken once, by
 * whichever comes first of its instant's timer and `wakeDue` (a durable timer that fired); the other finds it
 * gone. (A reconcile already running when its instant fires runs again and may set the same instant anew, which
 * wakes it once more: harmless, since the stored state decides what is due.)
 */
export class WakeSchedule {
  private readonly instantOf = new Map<string, number>();
  private readonly keysAt = new Map<number, Set<string>>();
  private readonly timers = new Map<number, NodeJS.Timeout>();

  constructor(
    private readonly clock: Clock,
    private readonly wake: (key: string) => void,
  ) {}

  /** Wakes `key` at `at` (ms since the epoch) instead of its earlier instant; undefined: not at all. */
  set(key: string, at: number | undefined): void {
    const current = this.instantOf.get(key);
    if (current === at) return;
    if (current !== undefined) this.drop(key, current);
    if (at === undefined) return;
    this.instantOf.set(key, at);
    const keys = this.keysAt.get(at);
    if (keys) keys.add(key);
    else {
      this.keysAt.set(at, new Set([key]));
      this.startTimer(at);
    }
  }

  /** Wakes every key whose instant is `now` or earlier. */
  wakeDue(now: number): void {
    for (const at of [...this.keysAt.keys()]) if (at <= now) this.fire(at);
  }

  clear(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.keysAt.clear();
    this.instantOf.clear();
  }

  private drop(key: string, at: number): void {
    this.instantOf.delete(key);
    const keys = this.keysAt.get(at);
    keys?.delete(key);
    if (keys?.size !== 0) return;
    this.keysAt.delete(at);
    clearTimeout(this.timers.get(at));
    this.timers.delete(at);
  }

  private startTimer(at: number): void {
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, at - this.clock.now().getTime()));
    const timer = setTimeout(() => {
      // A timer can fire a little before the clock reaches its instant (or a capped one long before): wait on.
      if (this.clock.now().getTime() < at) this.startTimer(at);
      else this.fire(at);
    }, delay);
    this.timers.set(at, timer);
  }

  private fire(at: number): void {
    clearTimeout(this.timers.get(at));
    this.timers.delete(at);
    const keys = this.keysAt.get(at);
    this.keysAt.delete(at);
    for (const key of keys ?? []) {
      this.instantOf.delete(key);
      this.wake(key);
    }
  }
}
