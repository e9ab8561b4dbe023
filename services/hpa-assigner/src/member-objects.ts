import { FederatedHpaAnnotations, formatMemberLimits, type FederatedHPA } from '@flotilla/api';
import type { MemberAssignment } from '@flotilla/assignment';
import type { StoredObject } from '@flotilla/store';

/** The autoscaling/v2 HorizontalPodAutoscaler template the member clusters run for a FederatedHPA. */
export function memberHpaTemplate(fhpa: FederatedHPA): StoredObject {
  const { name, namespace } = fhpa.metadata;
  const spec = fhpa.spec!;
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: {
      name: name!,
      ...(namespace ? { namespace } : {}),
      annotations: { [FederatedHpaAnnotations.owner]: name! },
    },
    spec: {
      scaleTargetRef: spec.scaleTargetRef,
      minReplicas: spec.minReplicas ?? 1,
      maxReplicas: spec.maxReplicas,
      ...(spec.metrics ? { metrics: spec.metrics } : {}),
      ...(spec.behavior ? { behavior: spec.behavior } : {}),
    },
  };
}

/** The binding name Karmada's detector gives a template (`<name>-<kind>`), which the scheduler uses too. */
export const bindingNameOf = (name: string, kind: string) => `${name}-${kind.toLowerCase()}`;

export interface MemberHpaRecord {
  assignments: readonly MemberAssignment[];
  basis: string;
  optimisedAtMs?: number;
  pinned?: Record<string, number>;
}

/**
 * The member HPA's binding: it travels to the clusters that get a member HPA, the way workloads do, and carries
 * each cluster's min/max as a per-cluster override, with what the assignment was made from.
 */
export function memberHpaBinding(fhpa: FederatedHPA, record: MemberHpaRecord): StoredObject {
  const { name, namespace } = fhpa.metadata;
  return {
    apiVersion: 'work.karmada.io/v1alpha2',
    kind: 'ResourceBinding',
    metadata: {
      name: bindingNameOf(name!, 'HorizontalPodAutoscaler'),
      ...(namespace ? { namespace } : {}),
      annotations: memberHpaAnnotations(name!, record),
    },
    spec: {
      resource: {
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        ...(namespace ? { namespace } : {}),
        name: name!,
      },
      clusters: record.assignments.map((a) => ({ name: a.cluster })),
    },
  };
}

export function memberHpaAnnotations(owner: string, record: MemberHpaRecord): Record<string, string> {
  return {
    [FederatedHpaAnnotations.owner]: owner,
    [FederatedHpaAnnotations.memberLimits]: formatMemberLimits(record.assignments),
    [FederatedHpaAnnotations.assignmentBasis]: record.basis,
    ...(record.optimisedAtMs !== undefined
      ? { [FederatedHpaAnnotations.optimisedAt]: new Date(record.optimisedAtMs).toISOString() }
      : {}),
    ...(record.pinned ? { [FederatedHpaAnnotations.pinnedMins]: JSON.stringify(record.pinned) } : {}),
  };
}
