import { ClaimAnnotations } from './detection.js';
import type { BindingObject, ResourceBinding } from './types.js';

/**
 * The spec fields detection derives from the template and its policy. The others belong to someone else and are
 * kept: spec.clusters to the scheduler, rescheduleTriggeredAt to the rebalancer, and so on.
 */
const DETECTED_SPEC_FIELDS = ['resource', 'replicas', 'replicaRequirements', 'placement', 'schedulePriority'] as const;

/**
 * The stored binding with what detection derives replaced by `detected` (buildBinding's output): a field the
 * template no longer yields (requests dropped, replicas gone) is removed rather than kept from before, and so is
 * the claim of a policy other than the one that now claims the template.
 */
export function withDetected<T extends BindingObject>(current: T, detected: ResourceBinding): T {
  const spec = { ...(current.spec as Record<string, unknown>) };
  for (const field of DETECTED_SPEC_FIELDS) delete spec[field];
  Object.assign(spec, detected.spec);
  const annotations = { ...current.metadata.annotations };
  for (const key of Object.values(ClaimAnnotations)) delete annotations[key];
  return {
    ...current,
    metadata: { ...current.metadata, annotations: { ...annotations, ...detected.metadata.annotations } },
    spec,
  };
}
