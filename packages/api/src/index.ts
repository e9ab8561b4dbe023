// What reads objects without admitting them (its own entry, `@flotilla/api/core`, builds no schemas).
export * from './core.js';
export { quantityFormat, type QuantityFormat } from './quantity.js';
export {
  AdmissionError,
  formatCauses,
  InvalidRequestError,
  isAdmissionError,
  ManifestError,
  type FieldError,
} from './errors.js';
export { joinPath, issuesToFieldErrors } from './field-path.js';
export type { AllocatableModeling, ResourceModel } from './kinds/resource-model.js';
export { HIGHEST_USER_PRIORITY, priorityClassSchema, type PriorityClass } from './kinds/priority-class.js';
export { MAX_NESTING_DEPTH } from './input-shape.js';
export { objectNameErrors, parseObjectQuery, type ObjectQueryOf } from './object-query.js';
export {
  objectMetaSchema,
  ownerReferenceSchema,
  timeSchema,
  validateObjectMeta,
  type ObjectMeta,
  type OwnerReference,
} from './meta.js';
export { dns1123LabelErrors, dns1123SubdomainErrors, labelValueErrors, qualifiedNameErrors } from './names.js';
export { registerKind } from './registry.js';
export type { KindTypes, ObjectOfKind, StatusOfKind } from './kind-types.js';
export {
  admissionWarnings,
  admit,
  DEFAULT_NAMESPACE,
  MAX_OBJECT_BYTES,
  validateUpdate,
  type AdmitOptions,
} from './admission.js';
export {
  DEFAULT_RESERVED_NAMESPACES,
  isReservedNamespaceEntryError,
  ReservedNamespaceEntryError,
  ReservedNamespaces,
  reservedNamespacesEnv,
} from './reserved-namespaces.js';
export { parseManifests, toYaml } from './manifests.js';
export type { KubeEventData } from './kube-event.js';
export type { AdmissionContext, KindAdmission, ScheduleChecks } from './kinds/kind-admission.js';
export {
  conditionSchema,
  defaultHpaBehavior,
  labelSelectorSchema,
  quantitySchema,
  resourceListSchema,
  taintSchema,
  tolerationSchema,
  type CrossVersionObjectReference,
  type HpaBehavior,
  type LabelSelector,
  type LabelSelectorRequirement,
  type MetricSpec,
  type NodeSelectorRequirement,
  type Quantity,
  type ResourceList,
  type Taint,
  type TaintEffect,
  type Toleration,
} from './kinds/common.js';
export {
  clusterSpecSchema,
  clusterSimulationSchema,
  clusterStatusSchema,
  foreignHorizontalPodAutoscalerSchema,
  type Cluster,
  type ClusterLease,
  type ClusterSimulation,
  type ClusterSpec,
  type ClusterStatus,
  type ForeignHorizontalPodAutoscaler,
} from './kinds/cluster.js';
export {
  clusterAffinitySchema,
  placementSchema,
  propagationSpecSchema,
  validateFailback,
  validatePlacement,
  type ClusterAffinity,
  type ClusterAffinityTerm,
  type ClusterPropagationPolicy,
  type FailoverBehavior,
  type Placement,
  type PropagationPolicy,
  type PropagationSpec,
  type ReplicaSchedulingStrategy,
  type ResourceSelector,
  type SpreadConstraint,
} from './kinds/propagation-policy.js';
export {
  resourceBindingSpecSchema,
  resourceBindingStatusSchema,
  type BindingObjectReference,
  type ClusterResourceBinding,
  type ResourceBinding,
  type ResourceBindingSpec,
  type ResourceBindingStatus,
  type TargetCluster,
} from './kinds/resource-binding.js';
export {
  FEDERATED_HPA_ASSIGNMENT_TYPES,
  federatedHpaSpecSchema,
  type FederatedHPA,
  type FederatedHPAAssignment,
  type FederatedHPAAssignmentType,
  type FederatedHPASpec,
  type FederatedHPAStatus,
} from './kinds/federated-hpa.js';
export {
  cronFederatedHpaSpecSchema,
  DEFAULT_HISTORY_LIMIT,
  FEDERATED_HPA_API_VERSION,
  targetsFederatedHpa,
  type CronFederatedHPA,
  type CronFederatedHPARule,
  type CronFederatedHPASpec,
  type CronFederatedHPAStatus,
} from './kinds/cron-federated-hpa.js';
export {
  workloadRebalancerSpecSchema,
  workloadSelectorSchema,
  type RebalancerObjectReference,
  type WorkloadSelector,
  type WorkloadRebalancer,
  type WorkloadRebalancerSpec,
  type WorkloadRebalancerStatus,
} from './kinds/workload-rebalancer.js';
export {
  DEFAULT_PREDICTION_WINDOW_SECONDS,
  ehpaCronMetricName,
  ehpaSpecSchema,
  ehpaTimeZoneError,
  normalizeEhpaSchedule,
  type EffectiveHorizontalPodAutoscaler,
  type EffectiveHorizontalPodAutoscalerSpec,
  type EffectiveHorizontalPodAutoscalerStatus,
  type EhpaCron,
} from './kinds/effective-hpa.js';
export { parseCraneDuration } from './kinds/crane-duration.js';
export { parseGoDuration, type GoDurationOptions } from './duration.js';
export {
  DEFAULT_DSP_CONFIG,
  DEFAULT_ESTIMATORS,
  DEFAULT_HIGH_FREQUENCY_THRESHOLD,
  DEFAULT_LOW_AMPLITUDE_THRESHOLD,
  DEFAULT_MAX_SPECTRUM_ITEMS,
  DEFAULT_MIN_SPECTRUM_ITEMS,
  DSP_SPEC_PATH,
  estimatorName,
  resolveDspConfig,
  type DspConfig,
  type DspSpec,
  type Estimator,
  type FftEstimator,
  type MaxValueEstimator,
} from './kinds/dsp-config.js';
export {
  CrdSchemaError,
  crdFileName,
  customResourceDefinition,
  customResourceKinds,
  renderCrdFiles,
  toOpenApi,
  type OpenApiSchema,
  type PrinterColumn,
} from './crd.js';
