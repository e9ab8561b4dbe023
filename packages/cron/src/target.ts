import { FEDERATED_HPA_API_VERSION, type CronFederatedHPARule } from '@flotilla/api';
import type { ScaleTargetRef, TargetValues } from './types.js';

/**
 * How a CronFederatedHPA's target is scaled, dispatched on apiVersion exactly as Karmada does: that API group
 * means a FederatedHPA (min/max), anything else a workload with `spec.replicas`.
 */
export type TargetKind = 'FederatedHPA' | 'Workload' | 'Unsupported';

export function targetKindOf(ref: ScaleTargetRef): TargetKind {
  if (ref.apiVersion !== FEDERATED_HPA_API_VERSION) return 'Workload';
  return ref.kind === 'FederatedHPA' ? 'FederatedHPA' : 'Unsupported';
}

/** The values a rule sets on a target of `kind`; fields meant for the other kind are ignored, as in Karmada. */
export function ruleValues(rule: CronFederatedHPARule, kind: TargetKind): TargetValues {
  const v: TargetValues = {};
  if (kind === 'Workload') {
    if (rule.targetReplicas !== undefined) v.replicas = rule.targetReplicas;
  } else if (kind === 'FederatedHPA') {
    if (rule.targetMinReplicas !== undefined) v.minReplicas = rule.targetMinReplicas;
    if (rule.targetMaxReplicas !== undefined) v.maxReplicas = rule.targetMaxReplicas;
  }
  return v;
}
