import { FederatedHpaAnnotations, type FederatedHPA } from '@flotilla/api';
import { memberHpaBindingAnnotations, type RecordedAssignment } from '@flotilla/assignment';
import type { StoredObject } from '@flotilla/store';

export const HPA_KIND = 'HorizontalPodAutoscaler';

/** The autoscaling/v2 HorizontalPodAutoscaler template the member clusters run for a FederatedHPA. */
export function memberHpaTemplate(fhpa: FederatedHPA): StoredObject {
  const { name, namespace } = fhpa.metadata;
  const spec = fhpa.spec!;
  return {
    apiVersion: 'autoscaling/v2',
    kind: HPA_KIND,
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

/**
 * The member HPA's binding: it travels to the clusters that get a member HPA, the way workloads do, and carries
 * each cluster's min/max as a per-cluster override (the rest of the record is in the FederatedHPA's status).
 */
export function memberHpaBinding(fhpa: FederatedHPA, record: RecordedAssignment): StoredObject {
  const { name, namespace } = fhpa.metadata;
  return {
    apiVersion: 'work.karmada.io/v1alpha2',
    kind: 'ResourceBinding',
    metadata: {
      name: bindingNameOf(name!, 'HorizontalPodAutoscaler'),
      ...(namespace ? { namespace } : {}),
      annotations: memberHpaBindingAnnotations(name!, record.assignments),
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
