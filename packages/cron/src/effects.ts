import { targetKindOf } from './target.js';
import type { ScaleTargetRef, TargetValues } from './types.js';

/** What a successful execution records: only the fields it applied. */
export interface AppliedValues {
  appliedReplicas?: number;
  appliedMinReplicas?: number;
  appliedMaxReplicas?: number;
}

/** The target as the executor read it; `undefined` means it does not exist. */
export interface ScaleTargetSnapshot {
  spec?: { replicas?: number; minReplicas?: number; maxReplicas?: number };
}

/** Why an execution failed; `WriteFailed`: the target was there but writing it kept failing (the controller gives up after its attempts). */
export type ScaleFailureReason =
  | 'TargetNotFound'
  | 'UnsupportedTarget'
  | 'MinAboveMax'
  | 'NothingToApply'
  | 'WriteFailed';

export type ScaleEffect =
  | {
      readonly ok: true;
      /** The spec fields to write on the target. */
      readonly patch: TargetValues;
      readonly applied: AppliedValues;
      /** False when the target already holds every value: the write can be skipped, the run still succeeds. */
      readonly changed: boolean;
    }
  | { readonly ok: false; readonly reason: ScaleFailureReason; readonly message: string };

/** The Kubernetes event reason for a failed run, as Karmada records it. */
export const SCALE_FAILED_REASON = 'ScaleFailed';

function describe(ref: ScaleTargetRef, namespace: string | undefined): string {
  return `${ref.kind} ${namespace ? `${namespace}/` : ''}${ref.name}`;
}

/**
 * The effect of applying `values` to the target. A FederatedHPA keeps Karmada's FederatedHPA admission rule
 * (maxReplicas >= minReplicas, minReplicas defaulting to 1): an execution that would break it fails with a
 * message instead of being adjusted.
 */
export function scaleEffect(
  ref: ScaleTargetRef,
  namespace: string | undefined,
  target: ScaleTargetSnapshot | undefined,
  values: TargetValues,
): ScaleEffect {
  const kind = targetKindOf(ref);
  const what = describe(ref, namespace);
  if (kind === 'Unsupported') {
    return {
      ok: false,
      reason: 'UnsupportedTarget',
      message: `scale target ${ref.apiVersion ?? ''}/${ref.kind} is not supported: only FederatedHPA in that API group`,
    };
  }
  if (target === undefined) return { ok: false, reason: 'TargetNotFound', message: `${what} not found` };
  const spec = target.spec ?? {};
  if (kind === 'Workload') {
    if (values.replicas === undefined)
      return { ok: false, reason: 'NothingToApply', message: `no targetReplicas to apply to ${what}` };
    return {
      ok: true,
      patch: { replicas: values.replicas },
      applied: { appliedReplicas: values.replicas },
      changed: spec.replicas !== values.replicas,
    };
  }
  if (values.minReplicas === undefined && values.maxReplicas === undefined) {
    return {
      ok: false,
      reason: 'NothingToApply',
      message: `no targetMinReplicas or targetMaxReplicas to apply to ${what}`,
    };
  }
  const min = values.minReplicas ?? spec.minReplicas ?? 1;
  const max = values.maxReplicas ?? spec.maxReplicas;
  if (max !== undefined && min > max) {
    const message =
      values.minReplicas !== undefined && values.maxReplicas === undefined
        ? `cannot set ${what} spec.minReplicas to ${min}: above its spec.maxReplicas ${max} (a FederatedHPA needs maxReplicas >= minReplicas; set targetMaxReplicas in the same rule)`
        : values.minReplicas === undefined
          ? `cannot set ${what} spec.maxReplicas to ${max}: below its spec.minReplicas ${min} (a FederatedHPA needs maxReplicas >= minReplicas)`
          : `cannot set ${what} spec.minReplicas to ${min} and spec.maxReplicas to ${max}: a FederatedHPA needs maxReplicas >= minReplicas`;
    return { ok: false, reason: 'MinAboveMax', message };
  }
  const patch: TargetValues = {};
  const applied: AppliedValues = {};
  if (values.minReplicas !== undefined) {
    patch.minReplicas = values.minReplicas;
    applied.appliedMinReplicas = values.minReplicas;
  }
  if (values.maxReplicas !== undefined) {
    patch.maxReplicas = values.maxReplicas;
    applied.appliedMaxReplicas = values.maxReplicas;
  }
  const changed =
    (values.minReplicas !== undefined && values.minReplicas !== spec.minReplicas) ||
    (values.maxReplicas !== undefined && values.maxReplicas !== spec.maxReplicas);
  return { ok: true, patch, applied, changed };
}
