import { NoMemberReplicasError } from './errors.js';
import type { PodSample } from './group-pods.js';

/** One member cluster's copy of the resource template, as Karmada's FederatedHPA controller reads it. */
export interface MemberWorkload {
  cluster: string;
  /** The cluster's Ready condition; a cluster that is not Ready contributes neither pods nor replicas. */
  clusterReady: boolean;
  specReplicas: number;
  statusReplicas: number;
  pods: readonly PodSample[];
}

export interface FederatedObservation {
  /** The pods of all Ready clusters, to feed the replica calculator as if they were one workload. */
  pods: PodSample[];
  specReplicas: number;
  statusReplicas: number;
  /**
   * Σ member `spec.replicas` / template `spec.replicas`. The calculator divides its pod-count based proposal by it,
   * which brings the proposal back to template units: Duplicated placement counts every template replica once per
   * cluster, and a lost cluster shrinks the pod count without shrinking the template.
   */
  calibration: number;
  clusters: string[];
}

/**
 * Karmada's FederatedHPA (`federatedhpa_controller.go` `scaleForTargetCluster`): aggregates the Ready member
 * clusters of the binding and derives the calibration factor against the template's replicas.
 */
export function observeMembers(templateSpecReplicas: number, members: readonly MemberWorkload[]): FederatedObservation {
  const ready = members.filter((m) => m.clusterReady);
  const specReplicas = ready.reduce((s, m) => s + m.specReplicas, 0);
  const clusters = ready.map((m) => m.cluster);
  if (specReplicas === 0) throw new NoMemberReplicasError(clusters);
  return {
    pods: ready.flatMap((m) => m.pods),
    specReplicas,
    statusReplicas: ready.reduce((s, m) => s + m.statusReplicas, 0),
    calibration: specReplicas / templateSpecReplicas,
    clusters,
  };
}
