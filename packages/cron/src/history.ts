import type { CronEvent, CronNextScheduledData, CronRuleExecutedData, CronRuleFailedData } from './events.js';
import { formatTime } from './time-format.js';
import type { CronFederatedHPAStatus, ExecutionHistory } from './types.js';

/** Newest first, at most `limit` (0 keeps none; Karmada's slice cut crashes there). */
function prependCapped<T>(list: readonly T[] | undefined, item: T, limit: number): T[] | undefined {
  const keep = Math.max(0, Math.floor(limit));
  const next = [item, ...(list ?? [])].slice(0, keep);
  return next.length ? next : undefined;
}

function withNext(entry: ExecutionHistory, next: string | null): ExecutionHistory {
  const out: ExecutionHistory = { ...entry };
  if (next === null) delete out.nextExecutionTime;
  else out.nextExecutionTime = formatTime(new Date(next));
  return out;
}

function clean(entry: ExecutionHistory): ExecutionHistory {
  const out: ExecutionHistory = { ...entry };
  if (!out.successfulExecutions?.length) delete out.successfulExecutions;
  if (!out.failedExecutions?.length) delete out.failedExecutions;
  return out;
}

function updateEntry(
  status: CronFederatedHPAStatus | undefined,
  ruleName: string,
  change: (entry: ExecutionHistory) => ExecutionHistory,
): CronFederatedHPAStatus {
  const list = status?.executionHistories ?? [];
  const i = list.findIndex((h) => h.ruleName === ruleName);
  // An entry normally exists from CronNextScheduled; a missing one is created so a replay never drops a run.
  const next = i < 0 ? [...list, clean(change({ ruleName }))] : list.map((h, j) => (j === i ? clean(change(h)) : h));
  return { ...status, executionHistories: next };
}

function executed(status: CronFederatedHPAStatus | undefined, d: CronRuleExecutedData): CronFederatedHPAStatus {
  const record = {
    scheduleTime: formatTime(new Date(d.scheduleTime)),
    executionTime: formatTime(new Date(d.executionTime)),
    ...(d.appliedReplicas !== undefined && { appliedReplicas: d.appliedReplicas }),
    ...(d.appliedMinReplicas !== undefined && { appliedMinReplicas: d.appliedMinReplicas }),
    ...(d.appliedMaxReplicas !== undefined && { appliedMaxReplicas: d.appliedMaxReplicas }),
  };
  return updateEntry(status, d.ruleName, (h) => {
    // A repeated decision (its event re-published after the stream's duplicate window) records nothing new; a
    // success replaces a failure recorded for the same time, since the target's markers say it was applied.
    if (recorded(h.successfulExecutions, record.scheduleTime)) return withNext(h, d.nextExecutionTime);
    return {
      ...withNext(h, d.nextExecutionTime),
      successfulExecutions: prependCapped(h.successfulExecutions, record, d.successfulHistoryLimit),
      failedExecutions: h.failedExecutions?.filter((f) => f.scheduleTime !== record.scheduleTime),
    };
  });
}

function recorded(list: ReadonlyArray<{ scheduleTime: string }> | undefined, scheduleTime: string): boolean {
  return list?.some((r) => r.scheduleTime === scheduleTime) ?? false;
}

function failed(status: CronFederatedHPAStatus | undefined, d: CronRuleFailedData): CronFederatedHPAStatus {
  const record = {
    scheduleTime: formatTime(new Date(d.scheduleTime)),
    executionTime: formatTime(new Date(d.executionTime)),
    message: d.message,
  };
  return updateEntry(status, d.ruleName, (h) => {
    // Once per schedule time: a time already recorded, as applied or as failed, stays as it was.
    if (recorded(h.successfulExecutions, record.scheduleTime) || recorded(h.failedExecutions, record.scheduleTime)) return withNext(h, d.nextExecutionTime);
    return { ...withNext(h, d.nextExecutionTime), failedExecutions: prependCapped(h.failedExecutions, record, d.failedHistoryLimit) };
  });
}

function nextScheduled(status: CronFederatedHPAStatus | undefined, d: CronNextScheduledData): CronFederatedHPAStatus {
  const wanted = new Map(d.rules.map((r) => [r.ruleName, r.nextExecutionTime]));
  // Karmada keeps entries in order of first appearance: existing ones stay put, new rules go to the end.
  const kept = (status?.executionHistories ?? [])
    .filter((h) => wanted.has(h.ruleName))
    .map((h) => withNext(h, wanted.get(h.ruleName) ?? null));
  const known = new Set(kept.map((h) => h.ruleName));
  const added = d.rules.filter((r) => !known.has(r.ruleName)).map((r) => withNext({ ruleName: r.ruleName }, r.nextExecutionTime));
  const executionHistories = [...kept, ...added];
  const out: CronFederatedHPAStatus = { ...status, executionHistories };
  if (!executionHistories.length) delete out.executionHistories;
  return out;
}

/** Folds one cron event into a CronFederatedHPA's status (pure; the status writer's reducer). */
export function evolveHistory(status: CronFederatedHPAStatus | undefined, event: CronEvent): CronFederatedHPAStatus {
  switch (event.type) {
    case 'CronRuleExecuted':
      return executed(status, event.data);
    case 'CronRuleFailed':
      return failed(status, event.data);
    case 'CronNextScheduled':
      return nextScheduled(status, event.data);
  }
}
