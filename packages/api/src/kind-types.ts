import type { Cluster } from './kinds/cluster.js';
import type { CronFederatedHPA } from './kinds/cron-federated-hpa.js';
import type { EffectiveHorizontalPodAutoscaler } from './kinds/effective-hpa.js';
import type { FederatedHPA } from './kinds/federated-hpa.js';
import type { ClusterPropagationPolicy, PropagationPolicy } from './kinds/propagation-policy.js';
import type { ClusterResourceBinding, ResourceBinding } from './kinds/resource-binding.js';
import type { WorkloadRebalancer } from './kinds/workload-rebalancer.js';
import type { KubeObject } from './object.js';

/**
 * The type of each kind the registry validates whole, by kind name: what typed readers (informers, clients) hand
 * out for a kind. A kind not listed here (a resource template such as Deployment) is a plain KubeObject.
 */
export interface KindTypes {
  Cluster: Cluster;
  PropagationPolicy: PropagationPolicy;
  ClusterPropagationPolicy: ClusterPropagationPolicy;
  ResourceBinding: ResourceBinding;
  ClusterResourceBinding: ClusterResourceBinding;
  FederatedHPA: FederatedHPA;
  CronFederatedHPA: CronFederatedHPA;
  WorkloadRebalancer: WorkloadRebalancer;
  EffectiveHorizontalPodAutoscaler: EffectiveHorizontalPodAutoscaler;
}

/** The object type of a kind name: its KindTypes entry, else a generic KubeObject. */
export type ObjectOfKind<K extends string> = K extends keyof KindTypes ? KindTypes[K] : KubeObject;

/** The status type of a kind name (what the status bucket holds for it). */
export type StatusOfKind<K extends string> = K extends keyof KindTypes
  ? NonNullable<KindTypes[K]['status']>
  : Record<string, unknown>;
