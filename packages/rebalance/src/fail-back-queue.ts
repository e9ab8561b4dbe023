import type { Cluster, ResourceBinding } from '@flotilla/scheduling';
import { decideFailBack, type FailBackHold, type FailBackPolicy, type FailBackStatus } from './fail-back.js';
import { planFailBacks, type FailBackBudget, type FailBackCandidate, type FailBackWait } from './fail-back-budget.js';

export interface FailBackQueueInput {
  /** Every binding, with its status. */
  bindings: readonly ResourceBinding[];
  /** The claiming policy of a binding (its key and what fail-back reads of it); undefined when none claims it. */
  policyOf: (b: ResourceBinding) => { key: string; policy: FailBackPolicy } | undefined;
  clusters: readonly Cluster[];
  budget: FailBackBudget;
  now: Date;
}

export interface QueuedFailBack extends FailBackHold {
  binding: ResourceBinding;
  /** When its window has passed. */
  readyAt: string;
  /** When it would fail back, by the budget's plan; undefined while its policy's maxConcurrent are under way. */
  moveAt?: string;
  turn?: number;
  waitingFor: FailBackWait;
}

/**
 * The bindings waiting to fail back, as the rebalancer decides and plans them from the same state (decideFailBack,
 * then planFailBacks over the fleet's recent fail-backs): for `flotilla get failbacks`. In turn order, the ones
 * without a turn last.
 */
export function failBackQueue(input: FailBackQueueInput): QueuedFailBack[] {
  const { now } = input;
  const since = now.getTime() - input.budget.periodMs;
  const recent: string[] = [];
  const inFlight = new Map<string, number>();
  const maxConcurrent = new Map<string, number>();
  const candidates: FailBackCandidate[] = [];
  const waiting = new Map<string, { binding: ResourceBinding; hold: FailBackHold; readyAt: string }>();
  input.bindings.forEach((binding, i) => {
    const s = binding.status as (FailBackStatus & { lastScheduledTime?: string }) | undefined;
    const claimed = input.policyOf(binding);
    const last = s?.lastFailBackTime;
    if (last && Date.parse(last) > since) recent.push(last);
    if (claimed && last && (!s?.lastScheduledTime || Date.parse(s.lastScheduledTime) < Date.parse(last)))
      inFlight.set(claimed.key, (inFlight.get(claimed.key) ?? 0) + 1);
    if (!claimed || !s?.failBack) return;
    const d = decideFailBack({ binding, policy: claimed.policy, clusters: input.clusters, now });
    if (d.action === 'none') return;
    const key = String(i);
    candidates.push({ key, policy: claimed.key, holdingSince: d.hold.holdingSince, readyAt: d.readyAt });
    waiting.set(key, { binding, hold: d.hold, readyAt: d.readyAt });
    const max = claimed.policy.failback?.enabled ? claimed.policy.failback.maxConcurrent : undefined;
    if (max !== undefined) maxConcurrent.set(claimed.key, max);
  });
  return planFailBacks({ candidates, recentTriggers: recent, inFlight, maxConcurrent, budget: input.budget, now }).map(
    (p) => {
      const w = waiting.get(p.key)!;
      return {
        binding: w.binding,
        ...w.hold,
        readyAt: w.readyAt,
        ...(p.moveAt ? { moveAt: p.moveAt, turn: p.turn } : {}),
        waitingFor: p.waitingFor,
      };
    },
  );
}
