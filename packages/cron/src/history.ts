import type {
  CronEvent,
  CronNextScheduledData,
  CronRuleExecutedData,
  CronRuleFailedData,
  CronRuleSkippedData,
} from './events.js';
import { formatTime } from '@flotilla/api';
import type { CronFederatedHPAStatus } from '@flotilla/api';
import type { ExecutionHistory } from './types.js';

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
  if (!out.skippedExecutions?.length) delete out.skippedExecutions;
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
    // A rule's schedule times only move forward, so an older one is a repeated decision (its event re-published
    // after the stream's duplicate window) and changes nothing, not even the next time. A success replaces a
    // failure recorded for the same time, since the target's markers say it was applied.
    const t = record.scheduleTime;
    if (t <= (newest(h.successfulExecutions) ?? '') || t < (newest(h.failedExecutions) ?? '')) return h;
    return {
      ...withNext(h, d.nextExecutionTime),
      successfulExecutions: prependCapped(h.successfulExecutions, record, d.successfulHistoryLimit),
      failedExecutions: h.failedExecutions?.filter((f) => f.scheduleTime !== record.scheduleTime),
    };
  });
}

/** The newest schedule time of a history list (newest first); times in one format compare as strings. */
function newest(list: ReadonlyArray<{ scheduleTime: string }> | undefined): string | undefined {
  return list?.[0]?.scheduleTime;
}

function failed(status: CronFederatedHPAStatus | undefined, d: CronRuleFailedData): CronFederatedHPAStatus {
  const record = {
    scheduleTime: formatTime(new Date(d.scheduleTime)),
    executionTime: formatTime(new Date(d.executionTime)),
    message: d.message,
  };
  return updateEntry(status, d.ruleName, (h) => {
    // Once per schedule time: a time not newer than every one recorded is a repeat and changes nothing.
    const t = record.scheduleTime;
    if (t <= (newest(h.successfulExecutions) ?? '') || t <= (newest(h.failedExecutions) ?? '')) return h;
    return {
      ...withNext(h, d.nextExecutionTime),
      failedExecutions: prependCapped(h.failedExecutions, record, d.failedHistoryLimit),
    };
  });
}

function skipped(status: CronFederatedHPAStatus | undefined, d: CronRuleSkippedData): CronFederatedHPAStatus {
  const record = {
    scheduleTime: formatTime(new Date(d.scheduleTime)),
    executionTime: formatTime(new Date(d.executionTime)),
    reason: d.reason,
    message: d.message,
  };
  return updateEntry(status, d.ruleName, (h) => {
    // Once per schedule time, as a failure: a time not newer than the newest skip is a repeated decision.
    if (record.scheduleTime <= (newest(h.skippedExecutions) ?? '')) return h;
    return {
      ...withNext(h, d.nextExecutionTime),
      skippedExecutions: prependCapped(h.skippedExecutions, record, d.skippedHistoryLimit),
    };
  });
}

function nextScheduled(status: CronFederatedHPAStatus | undefined, d: CronNextScheduledData): CronFederatedHPAStatus {
  const wanted = new Map(d.rules.map((r) => [r.ruleName, r.nextExecutionTime]));
  // Karmada keeps entries in order of first appearance: existing ones stay put, new rules go to the end.
  const kept = (status?.executionHistories ?? [])
    .filter((h) => wanted.has(h.ruleName))
    .map((h) => withNext(h, wanted.get(h.ruleName) ?? null));
  const known = new Set(kept.map((h) => h.ruleName));
  const added = d.rules
    .filter((r) => !known.has(r.ruleName))
    .map((r) => withNext({ ruleName: r.ruleName }, r.nextExecutionTime));
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
    case 'CronRuleSkipped':
      return skipped(status, event.data);
  }
}
