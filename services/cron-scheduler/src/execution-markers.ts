import { isPlainObject } from '@flotilla/api';
import type { StoredObject } from '@flotilla/store';

/**
 * The target annotation recording, per CronFederatedHPA uid and rule, the latest schedule time applied to it.
 * It is written in the same compare-and-set as the scaled fields, so a replica that repeats an execution (a
 * redelivered job, a leader killed between the target write and the state write, two leaders for a moment) sees
 * the execution already in the target and does not apply it a second time.
 */
export const EXECUTIONS_ANNOTATION = 'cron.flotilla.io/executions';

/** cron object uid -> rule name -> latest applied schedule time (RFC 3339). */
export type ExecutionMarkers = Record<string, Record<string, string>>;

/** The markers on a target; a missing or mangled annotation (a user edited it) reads as none. */
export function readMarkers(target: Pick<StoredObject, 'metadata'> | undefined): ExecutionMarkers {
  const raw = target?.metadata.annotations?.[EXECUTIONS_ANNOTATION];
  if (raw === undefined) return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (!isPlainObject(parsed)) return {};
    const out: ExecutionMarkers = {};
    for (const [uid, rules] of Object.entries(parsed)) {
      if (!isPlainObject(rules)) continue;
      const kept: Record<string, string> = {};
      for (const [rule, at] of Object.entries(rules))
        if (typeof at === 'string' && !Number.isNaN(Date.parse(at))) kept[rule] = at;
      out[uid] = kept;
    }
    return out;
  } catch {
    return {};
  }
}

/** True when the target already holds the execution of (rule, scheduleTime) or a later one of the same rule. */
export function alreadyApplied(
  markers: ExecutionMarkers,
  cronUid: string,
  ruleName: string,
  scheduleTime: Date,
): boolean {
  const at = markers[cronUid]?.[ruleName];
  return at !== undefined && Date.parse(at) >= scheduleTime.getTime();
}

/**
 * The markers after recording `applied` for `cronUid`. Rules not in `ruleNames` (deleted or renamed) are dropped, so
 * the annotation stays as small as the object's rule list.
 */
export function recordMarkers(
  markers: ExecutionMarkers,
  cronUid: string,
  ruleNames: readonly string[],
  applied: ReadonlyArray<{ ruleName: string; scheduleTime: Date }>,
): ExecutionMarkers {
  const keep = new Set(ruleNames);
  const mine: Record<string, string> = {};
  for (const [rule, at] of Object.entries(markers[cronUid] ?? {})) if (keep.has(rule)) mine[rule] = at;
  for (const a of applied) {
    const cur = mine[a.ruleName];
    if (cur === undefined || Date.parse(cur) < a.scheduleTime.getTime())
      mine[a.ruleName] = a.scheduleTime.toISOString();
  }
  return { ...markers, [cronUid]: mine };
}

/**
 * The target annotation holding the largest fencing token of a cron-scheduler leader that wrote it (its lease's
 * counter). A write carrying a smaller one is a deposed leader's and is refused in the same compare-and-set.
 */
export const FENCING_ANNOTATION = 'cron.flotilla.io/fencing-token';

/** The fencing token a target carries; 0 when none (or a mangled one: a user's edit does not lock the leader out). */
export function fenceOf(target: Pick<StoredObject, 'metadata'> | undefined): number {
  const raw = target?.metadata.annotations?.[FENCING_ANNOTATION];
  const token = raw === undefined ? 0 : Number(raw);
  return Number.isSafeInteger(token) && token > 0 ? token : 0;
}

/** The target as written by the holder of `token` (which the caller checked is not older than fenceOf). */
export function withFence<T extends Pick<StoredObject, 'metadata'>>(target: T, token: number): T {
  return {
    ...target,
    metadata: {
      ...target.metadata,
      annotations: { ...target.metadata.annotations, [FENCING_ANNOTATION]: String(token) },
    },
  };
}
