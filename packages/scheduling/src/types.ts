/**
 * The scheduler's view of the API's kinds: the same types, loosened. Enums are plain strings and identity and
 * Cluster spec fields may be absent, because the scheduler copes with partial objects (stored objects carried along,
 * raw manifests in what-if). Each view is derived from the API type of the same name, never restated.
 */
import type * as api from '@flotilla/api';

export type { Quantity, ResourceList } from '@flotilla/api';

/** `T` with every string (enums included) widened to `string`, optionality as in the API. */
export type Loose<T> = T extends string
  ? string
  : T extends number | boolean | null | undefined
    ? T
    : T extends readonly (infer U)[]
      ? Loose<U>[]
      : T extends object
        ? { [K in keyof T]: Loose<T[K]> }
        : T;

/** An object of kind `T` whose type meta may be absent and whose metadata and spec are replaced by `Parts`. */
type View<T, Parts> = Omit<Loose<T>, 'apiVersion' | 'kind' | keyof Parts> & {
  apiVersion?: string;
  kind?: string;
} & Parts;

export type ObjectMeta = Partial<Loose<api.ObjectMeta>>;
export type LabelSelectorRequirement = Loose<api.LabelSelectorRequirement>;
export type LabelSelector = Loose<api.LabelSelector>;
export type FieldSelector = NonNullable<ClusterAffinity['fieldSelector']>;
export type Taint = Loose<api.Taint>;
export type Toleration = Loose<api.Toleration>;
export type Condition = Loose<api.Condition>;
export type ClusterAffinity = Loose<api.ClusterAffinity>;
export type ClusterAffinityTerm = Loose<api.ClusterAffinityTerm>;
export type ReplicaSchedulingStrategy = Loose<api.ReplicaSchedulingStrategy>;
export type StaticClusterWeight = NonNullable<
  NonNullable<ReplicaSchedulingStrategy['weightPreference']>['staticWeightList']
>[number];
export type SpreadConstraint = Loose<api.SpreadConstraint>;
export type Placement = Loose<api.Placement>;
export type ResourceSelector = Loose<api.ResourceSelector>;
export type TargetCluster = Loose<api.TargetCluster>;
export type ResourceSummary = NonNullable<NonNullable<Cluster['status']>['resourceSummary']>;
export type APIEnablement = NonNullable<NonNullable<Cluster['status']>['apiEnablements']>[number];

export type Cluster = View<api.Cluster, { metadata: ObjectMeta; spec?: Partial<Loose<api.ClusterSpec>> }>;

export type PropagationPolicy = View<api.PropagationPolicy, { metadata: ObjectMeta; spec: Loose<api.PropagationSpec> }>;

/** Any Kubernetes object that can be propagated (Deployment, ConfigMap, ClusterRole, …). */
export type ResourceTemplate = View<
  api.KubeObject,
  { apiVersion: string; kind: string; metadata: ObjectMeta; spec?: Record<string, unknown> }
>;

export type ObjectReference = Loose<api.BindingObjectReference>;
export type ResourceBindingSpec = Loose<api.ResourceBindingSpec>;
export type ResourceBindingStatus = Loose<api.ResourceBindingStatus>;
export type NodeClaim = NonNullable<NonNullable<ResourceBindingSpec['replicaRequirements']>['nodeClaim']>;

export type ResourceBinding = View<
  api.ResourceBinding,
  { metadata: ObjectMeta; spec: ResourceBindingSpec; status?: ResourceBindingStatus }
>;

/**
 * A stored binding as detection and scheduling update it: they write its annotations and spec and carry the rest
 * of the object along, so the service's stored objects and plain ResourceBindings both fit.
 */
export interface BindingObject {
  metadata: { annotations?: Record<string, string> };
  spec?: unknown;
}
