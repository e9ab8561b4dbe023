/**
 * The fleet's fail-back budget: at most `max` fail-backs triggered in any `periodMs`, so that a region that
 * recovers does not pull every workload back at once. The rebalancer's settings default to these (its config
 * schema reads them), and `flotilla get failbacks` plans with them unless told the deployment's own.
 */
export const FAIL_BACK_BUDGET_DEFAULTS = { max: 10, periodMs: 60_000 } as const;

export interface FailBackBudget {
  /** Fail-backs triggered in any period, at most. */
  max: number;
  /** The period, in milliseconds. */
  periodMs: number;
}

/** A binding whose hold has started: it may fail back from `readyAt` on (its window passed), budget allowing. */
export interface FailBackCandidate {
  key: string;
  /** The claiming policy's key: `maxConcurrent` counts per policy. */
  policy: string;
  holdingSince: string;
  readyAt: string;
}

export interface FailBackPlanInput {
  candidates: readonly FailBackCandidate[];
  /** When fail-backs were triggered lately (older than a period are ignored). */
  recentTriggers: readonly string[];
  /** Per policy: its bindings failing back now (triggered, not yet rescheduled). */
  inFlight?: ReadonlyMap<string, number>;
  /** Per policy: `spec.failover.failback.maxConcurrent`; a policy not named has no limit of its own. */
  maxConcurrent?: ReadonlyMap<string, number>;
  budget: FailBackBudget;
  now: Date;
}

/**
 * Why a candidate does not move now: its stabilization window runs, the fleet's budget is spent until `moveAt`,
 * or its policy's `maxConcurrent` fail-backs are under way (it moves when one is done: no time is known).
 */
export type FailBackWait = 'None' | 'StabilizationWindow' | 'Budget' | 'MaxConcurrent';

export interface PlannedFailBack {
  key: string;
  /** When it would fail back; undefined while its policy's maxConcurrent are under way. */
  moveAt?: string;
  /** Its turn, from 1 (moves first); undefined with moveAt. */
  turn?: number;
  waitingFor: FailBackWait;
}

/**
 * The order and time of every waiting fail-back: the budget's `max` slots, each free again a period after the
 * fail-back that used it, go to the candidates whose window has passed, the oldest hold first (then by key, so the
 * plan is the same on every replica and in the CLI). Pure: the rebalancer triggers those whose moveAt is now, and
 * `flotilla get failbacks` shows the rest.
 */
export function planFailBacks(input: FailBackPlanInput): PlannedFailBack[] {
  const { budget, now } = input;
  const nowMs = now.getTime();
  const since = nowMs - budget.periodMs;
  // Each slot is free from the time here on: a recent trigger holds its slot for a period.
  const recent = input.recentTriggers
    .map((t) => Date.parse(t))
    .filter((t) => t > since)
    .sort((a, b) => b - a)
    .slice(0, budget.max);
  const slots = Array.from({ length: budget.max }, (_, i) =>
    i < recent.length ? recent[i]! + budget.periodMs : nowMs,
  ).sort((a, b) => a - b);
  const room = new Map<string, number>();
  for (const [policy, max] of input.maxConcurrent ?? [])
    room.set(policy, Math.max(0, max - (input.inFlight?.get(policy) ?? 0)));

  const byAge = (a: FailBackCandidate, b: FailBackCandidate) =>
    Date.parse(a.holdingSince) - Date.parse(b.holdingSince) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
  const pending = [...input.candidates].sort(byAge);
  const out: PlannedFailBack[] = [];
  let turn = 0;
  while (pending.length) {
    const open = pending.filter((c) => room.get(c.policy) !== 0);
    if (!open.length || !slots.length) break;
    // The next fail-back happens when a slot is free and some candidate is ready, whichever is later; among
    // the candidates ready by then, the oldest hold goes.
    const firstReady = Math.min(...open.map((c) => Date.parse(c.readyAt)));
    const at = Math.max(slots[0]!, firstReady, nowMs);
    const next = open.find((c) => Date.parse(c.readyAt) <= at)!;
    pending.splice(pending.indexOf(next), 1);
    const r = room.get(next.policy);
    if (r !== undefined) room.set(next.policy, r - 1);
    slots[0] = at + budget.periodMs;
    slots.sort((a, b) => a - b);
    const readyMs = Date.parse(next.readyAt);
    out.push({
      key: next.key,
      moveAt: new Date(at).toISOString(),
      turn: ++turn,
      waitingFor: at <= nowMs ? 'None' : at > Math.max(readyMs, nowMs) ? 'Budget' : 'StabilizationWindow',
    });
  }
  for (const c of pending) out.push({ key: c.key, waitingFor: 'MaxConcurrent' });
  return out;
}
