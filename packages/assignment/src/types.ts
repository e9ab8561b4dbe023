import type { FederatedHPAAssignmentType } from '@flotilla/api';

export type AssignmentPolicy = FederatedHPAAssignmentType;

/** The min/max of the member HPA one cluster gets. */
export interface MemberAssignment {
  cluster: string;
  minReplicas: number;
  maxReplicas: number;
}

/** One entry of the binding's spec.clusters as the assignment writes it. */
export interface BindingCluster {
  name: string;
  replicas: number;
}

/**
 * What the policies need to know about one candidate cluster. `available` is the estimator's free capacity for
 * the target's pods; `staticWeight` and `priority` come from the matching clusterAutoscalingPreference
 * (0 / undefined when none matches).
 */
export interface ClusterFacts {
  name: string;
  available: number;
  staticWeight: number;
  priority: number | undefined;
}
