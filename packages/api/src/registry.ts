import { clusterAdmission } from './kinds/cluster.js';
import { cronFederatedHpaAdmission } from './kinds/cron-federated-hpa.js';
import { ehpaAdmission } from './kinds/effective-hpa.js';
import { federatedHpaAdmission } from './kinds/federated-hpa.js';
import { genericTemplateAdmission } from './kinds/generic-template.js';
import { workloadTemplateAdmission } from './kinds/workload-template.js';
import type { KindAdmission } from './kinds/kind-admission.js';
import { priorityClassAdmission } from './kinds/priority-class.js';
import { propagationPolicyAdmission } from './kinds/propagation-policy.js';
import { resourceBindingAdmission } from './kinds/resource-binding.js';
import { workloadRebalancerAdmission } from './kinds/workload-rebalancer.js';
import { addKind, BUILT_IN_KINDS, type KindDefinition } from './kind-table.js';

export { kindOf, listKinds, resolveKind, type KindDefinition, type KindInfo } from './kind-table.js';

/** Each kind's admission; a kind without one is admitted as a generic template (metadata plus `spec.replicas`). */
const admissions = new Map<string, KindAdmission>();

const strictOf = (admission: KindAdmission | undefined) => admission !== undefined && !admission.resourceTemplate;

/**
 * Registers a kind. Without `admission` it is admitted as a generic template (metadata plus `spec.replicas`).
 * Returns a function that removes it again (for tests). Throws when the kind name is taken.
 */
export function registerKind(def: KindDefinition, admission?: KindAdmission): () => void {
  const added = addKind(def, strictOf(admission));
  const entry = admission ?? genericTemplateAdmission;
  admissions.set(def.kind, entry);
  return () => {
    added.remove();
    if (admissions.get(def.kind) === entry) admissions.delete(def.kind);
  };
}

const BUILT_IN_ADMISSIONS: Readonly<Record<string, KindAdmission>> = {
  Cluster: clusterAdmission,
  PropagationPolicy: propagationPolicyAdmission,
  ClusterPropagationPolicy: propagationPolicyAdmission,
  ResourceBinding: resourceBindingAdmission,
  ClusterResourceBinding: resourceBindingAdmission,
  FederatedHPA: federatedHpaAdmission,
  CronFederatedHPA: cronFederatedHpaAdmission,
  WorkloadRebalancer: workloadRebalancerAdmission,
  EffectiveHorizontalPodAutoscaler: ehpaAdmission,
  Deployment: workloadTemplateAdmission,
  StatefulSet: workloadTemplateAdmission,
  PriorityClass: priorityClassAdmission,
};
for (const { kind, strict } of BUILT_IN_KINDS) {
  const admission = BUILT_IN_ADMISSIONS[kind];
  // The kind table says which kinds are validated whole without loading their admission: it must say what it is.
  if (strictOf(admission) !== strict)
    throw new Error(`kind ${kind}: the kind table says strict=${strict}, its admission says otherwise`);
  admissions.set(kind, admission ?? genericTemplateAdmission);
}

/** @internal admission's hook into the registry. */
export function admissionOf(kind: string): KindAdmission | undefined {
  return admissions.get(kind);
}
