import type { CronPlan, RuleState } from '@flotilla/cron';

/**
 * Whether the rule list's next times need announcing (a CronNextScheduled event): rules added, removed, renamed,
 * reordered or re-clocked (schedule, zone, suspend), or a next time that moved without an execution or miss
 * event of that rule carrying it.
 */
export function needsNextScheduled(
  prev: readonly RuleState[],
  plan: Pick<CronPlan, 'state' | 'removed' | 'execute' | 'missed'>,
): boolean {
  if (plan.removed.length > 0 || prev.length !== plan.state.length) return true;
  const announced = new Set([...plan.execute, ...plan.missed].map((e) => e.ruleName));
  return plan.state.some((s, i) => {
    const p = prev[i];
    return (
      !p || p.ruleName !== s.ruleName || p.clock !== s.clock || (p.nextDue !== s.nextDue && !announced.has(s.ruleName))
    );
  });
}
