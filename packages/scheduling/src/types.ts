/**
 * Minimal structural input types for the scheduler, using Karmada's JSON field names so that real
 * Cluster / PropagationPolicy / ResourceBinding objects fit them without conversion. Everything is
 * optional where Kubernetes allows it to be absent: the scheduler must cope with partial objects.
 */

export type Quantity = string | number;
export type ResourceList = Record<string, Quantity>;

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  generation?: number;
  resourceVersion?: string;
  deletionTimestamp?: string;
}

export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export interface FieldSelector {
  /** Keys are provider, region or zone; operators In / NotIn (Exists / DoesNotExist for zone). */
  matchExpressions?: LabelSelectorRequirement[];
}

export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' | string;
  /** RFC3339; for NoExecute taints the toleration seconds count from here. */
  timeAdded?: string;
}

export interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal' | string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown' | string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

export interface APIEnablement {
  groupVersion: string;
  resources?: { name?: string; kind: string }[];
}

export interface ResourceSummary {
  allocatable?: ResourceList;
  allocated?: ResourceList;
  allocating?: ResourceList;
}

export interface Cluster {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: {
    provider?: string;
    region?: string;
    /** Deprecated single zone; `zones` wins when both are set. */
    zone?: string;
    zones?: string[];
    taints?: Taint[];
  };
  status?: {
    conditions?: Condition[];
    resourceSummary?: ResourceSummary;
    apiEnablements?: APIEnablement[];
  };
}

export interface ClusterAffinity {
  labelSelector?: LabelSelector;
  fieldSelector?: FieldSelector;
  clusterNames?: string[];
  exclude?: string[];
}

export interface ClusterAffinityTerm extends ClusterAffinity {
  affinityName: string;
}

export interface StaticClusterWeight {
  targetCluster: ClusterAffinity;
  weight: number;
}

export interface ReplicaSchedulingStrategy {
  replicaSchedulingType?: 'Duplicated' | 'Divided' | string;
  replicaDivisionPreference?: 'Aggregated' | 'Weighted' | string;
  weightPreference?: {
    staticWeightList?: StaticClusterWeight[];
    dynamicWeight?: 'AvailableReplicas' | string;
  };
}

export interface SpreadConstraint {
  spreadByField?: 'cluster' | 'region' | 'zone' | 'provider' | string;
  spreadByLabel?: string;
  maxGroups?: number;
  minGroups?: number;
}

export interface Placement {
  clusterAffinity?: ClusterAffinity;
  clusterAffinities?: ClusterAffinityTerm[];
  clusterTolerations?: Toleration[];
  spreadConstraints?: SpreadConstraint[];
  replicaScheduling?: ReplicaSchedulingStrategy;
}

export interface ResourceSelector {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name?: string;
  labelSelector?: LabelSelector;
}

export interface PropagationPolicy {
  apiVersion?: string;
  kind?: 'PropagationPolicy' | 'ClusterPropagationPolicy' | string;
  metadata: ObjectMeta;
  spec: {
    resourceSelectors?: ResourceSelector[];
    priority?: number;
    /** Whether this policy takes a template over from a policy that already claimed it (admission defaults Never). */
    preemption?: 'Always' | 'Never' | string;
    placement?: Placement;
  };
}

/** Any Kubernetes object that can be propagated (Deployment, ConfigMap, ClusterRole, …). */
export interface ResourceTemplate {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: Record<string, unknown>;
}

export interface ObjectReference {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  uid?: string;
  resourceVersion?: string;
}

export interface TargetCluster {
  name: string;
  replicas?: number;
}

/** Karmada's NodeClaim: the pod template's node constraints, carried for estimators that look at nodes. */
export interface NodeClaim {
  nodeSelector?: Record<string, string>;
  tolerations?: unknown[];
  hardNodeAffinity?: Record<string, unknown>;
}

export interface ResourceBindingSpec {
  resource: ObjectReference;
  replicas?: number;
  replicaRequirements?: { nodeClaim?: NodeClaim; resourceRequest?: ResourceList };
  clusters?: TargetCluster[];
  placement?: Placement;
  rescheduleTriggeredAt?: string;
}

export interface ResourceBindingStatus {
  schedulerObservedGeneration?: number;
  schedulerObservingAffinityName?: string;
  lastScheduledTime?: string;
  conditions?: Condition[];
}

/**
 * A stored binding as detection and scheduling update it: they write its annotations and spec and carry the rest
 * of the object along, so the service's stored objects and plain ResourceBindings both fit.
 */
export interface BindingObject {
  metadata: { annotations?: Record<string, string> };
  spec?: unknown;
}

export interface ResourceBinding {
  apiVersion?: string;
  kind?: 'ResourceBinding' | 'ClusterResourceBinding' | string;
  metadata: ObjectMeta;
  spec: ResourceBindingSpec;
  status?: ResourceBindingStatus;
}
