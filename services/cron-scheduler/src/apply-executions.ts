import {
  scaleEffect,
  type AppliedValues,
  type DueExecution,
  type ScaleEffect,
  type ScaleTargetRef,
  type TargetValues,
} from '@flotilla/cron';
import type { StoredObject } from '@flotilla/store';
import { alreadyApplied, EXECUTIONS_ANNOTATION, readMarkers, recordMarkers } from './execution-markers.js';

export interface ExecutionOutcome {
  execution: DueExecution;
  effect: ScaleEffect;
  /** The target already carried this execution (an earlier attempt wrote it); nothing was written again. */
  repeated: boolean;
}

export interface AppliedExecutions {
  /** The target to write in one compare-and-set, or undefined when nothing needs writing. */
  target: StoredObject | undefined;
  outcomes: ExecutionOutcome[];
}

export interface ApplyExecutionsInput {
  ref: ScaleTargetRef;
  /** The CronFederatedHPA's namespace, which is the target's. */
  namespace: string | undefined;
  /** The target as read; undefined when it does not exist. */
  target: StoredObject | undefined;
  cronUid: string;
  /** The CronFederatedHPA's current rule names (markers of other rules are dropped). */
  ruleNames: readonly string[];
  /** In the order to apply them: a later one of a tie ends on the target. */
  executions: readonly DueExecution[];
}

function appliedOf(values: TargetValues): AppliedValues {
  const a: AppliedValues = {};
  if (values.replicas !== undefined) a.appliedReplicas = values.replicas;
  if (values.minReplicas !== undefined) a.appliedMinReplicas = values.minReplicas;
  if (values.maxReplicas !== undefined) a.appliedMaxReplicas = values.maxReplicas;
  return a;
}

type ScaleSpec = { replicas?: number; minReplicas?: number; maxReplicas?: number };

/**
 * Applies executions to a target, one after another on the evolving spec, and records the applied ones in the
 * target's execution markers. Pure: the caller runs it inside a compare-and-set (and again if that is lost).
 */
export function applyExecutions(input: ApplyExecutionsInput): AppliedExecutions {
  const { target } = input;
  const markers = readMarkers(target);
  let spec: ScaleSpec | undefined = target ? { ...((target.spec as ScaleSpec | undefined) ?? {}) } : undefined;
  const outcomes: ExecutionOutcome[] = [];
  const applied: DueExecution[] = [];
  for (const execution of input.executions) {
    if (target && alreadyApplied(markers, input.cronUid, execution.ruleName, execution.scheduleTime)) {
      const applied = appliedOf(execution.values);
      outcomes.push({
        execution,
        repeated: true,
        effect: { ok: true, patch: execution.values, applied, changed: false },
      });
      continue;
    }
    const effect = scaleEffect(input.ref, input.namespace, spec === undefined ? undefined : { spec }, execution.values);
    outcomes.push({ execution, effect, repeated: false });
    if (effect.ok) {
      spec = { ...spec, ...effect.patch };
      applied.push(execution);
    }
  }
  if (!target || applied.length === 0) return { target: undefined, outcomes };
  const nextMarkers = recordMarkers(markers, input.cronUid, input.ruleNames, applied);
  return {
    target: {
      ...target,
      metadata: {
        ...target.metadata,
        annotations: { ...target.metadata.annotations, [EXECUTIONS_ANNOTATION]: JSON.stringify(nextMarkers) },
      },
      spec: { ...(target.spec as object | undefined), ...spec },
    },
    outcomes,
  };
}
