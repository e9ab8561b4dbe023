import { z } from 'zod';
import type { FieldError } from '../errors.js';
import { timeSchema } from '../meta.js';
import type { KubeObject } from '../object.js';
import {
  conditionSchema,
  int32,
  int64,
  nodeSelectorRequirementSchema,
  resourceListSchema,
  tolerationSchema,
} from './common.js';
import type { KindAdmission } from './kind-admission.js';
import { failoverBehaviorSchema, placementSchema, validatePlacement } from './propagation-policy.js';

// Descriptions follow Karmada's ResourceBinding API (work.karmada.io/v1alpha2).
export const objectReferenceSchema = z.strictObject({
  apiVersion: z.string().min(1).describe('APIVersion represents the API version of the referent.'),
  kind: z.string().min(1).describe('Kind represents the Kind of the referent.'),
  namespace: z
    .string()
    .optional()
    .describe('Namespace represents the namespace for the referent; unset for a cluster-scoped resource.'),
  name: z.string().min(1).describe('Name represents the name of the referent.'),
  uid: z.string().optional().describe('UID of the referent.'),
  resourceVersion: z
    .string()
    .optional()
    .describe('ResourceVersion represents the internal version of the referenced object, to tell when it changed.'),
});
export type BindingObjectReference = z.infer<typeof objectReferenceSchema>;

export const targetClusterSchema = z.strictObject({
  name: z.string().min(1).describe('Name of target cluster.'),
  replicas: int32.min(0).optional().describe('Replicas in target cluster.'),
});
export type TargetCluster = z.infer<typeof targetClusterSchema>;

const replicaRequirementsSchema = z.strictObject({
  nodeClaim: z
    .strictObject({
      hardNodeAffinity: z
        .strictObject({
          nodeSelectorTerms: z
            .array(
              z.looseObject({
                matchExpressions: z
                  .array(nodeSelectorRequirementSchema)
                  .optional()
                  .describe("A list of node selector requirements by node's labels."),
              }),
            )
            .describe('Required. A list of node selector terms. The terms are ORed.'),
        })
        .optional()
        .describe("The pod template's required node affinity: the OR of its node selector terms."),
      nodeSelector: z
        .record(z.string(), z.string())
        .optional()
        .describe("NodeSelector: labels a node must carry for each replica's pod to be scheduled on it."),
      tolerations: z.array(tolerationSchema).optional().describe("The tolerations of each replica's pod."),
    })
    .optional()
    .describe(
      'NodeClaim represents the node claim HardNodeAffinity, NodeSelector and Tolerations required by each replica.',
    ),
  resourceRequest: resourceListSchema
    .optional()
    .describe('ResourceRequest represents the resources required by each replica.'),
  namespace: z.string().optional().describe("Namespace represents the resources' namespace."),
  priorityClassName: z.string().optional().describe("PriorityClassName represents the resources' priorityClassName."),
});

export const resourceBindingSpecSchema = z.strictObject({
  resource: objectReferenceSchema.describe('Resource represents the Kubernetes resource to be propagated.'),
  propagateDeps: z
    .boolean()
    .optional()
    .describe('PropagateDeps tells if relevant resources should be propagated automatically (from the policy).'),
  replicaRequirements: replicaRequirementsSchema
    .optional()
    .describe('ReplicaRequirements represents the requirements required by each replica.'),
  replicas: int32.min(0).optional().describe('Replicas represents the replica number of the referencing resource.'),
  clusters: z
    .array(targetClusterSchema)
    .optional()
    .describe('Clusters represents target member clusters where the resource to be deployed.'),
  placement: placementSchema
    .optional()
    .describe('Placement represents the rule for select clusters to propagate resources.'),
  gracefulEvictionTasks: z
    .array(z.looseObject({ fromCluster: z.string().describe('FromCluster which cluster the eviction perform from.') }))
    .optional()
    .describe('GracefulEvictionTasks holds the eviction tasks that are expected to perform the eviction gracefully.'),
  requiredBy: z
    .array(z.looseObject({}))
    .optional()
    .describe('RequiredBy represents the list of Bindings that depend on the referencing resource.'),
  schedulerName: z
    .string()
    .optional()
    .describe('SchedulerName represents which scheduler proceeds the scheduling (from the policy).'),
  failover: failoverBehaviorSchema
    .optional()
    .describe('Failover indicates how applications are migrated in case of failures (from the policy).'),
  conflictResolution: z
    .enum(['Abort', 'Overwrite'])
    .optional()
    .describe(
      'ConflictResolution declares what to do when a propagated resource already exists in the target cluster: Abort (the default) or Overwrite.',
    ),
  rescheduleTriggeredAt: timeSchema
    .optional()
    .describe(
      'RescheduleTriggeredAt is when a rescheduling of the referenced resource was triggered: later than status.lastScheduledTime, it makes a complete recalculation (Fresh) without the last result.',
    ),
  suspension: z
    .looseObject({})
    .optional()
    .describe('Suspension declares the policy for suspending different aspects of propagation (from the policy).'),
  preserveResourcesOnDeletion: z
    .boolean()
    .optional()
    .describe(
      'PreserveResourcesOnDeletion: true keeps the resources on the member clusters when the binding is deleted.',
    ),
  components: z
    .array(z.looseObject({}))
    .optional()
    .describe("Components represents the requirements of the referencing resource's several pod templates."),
  schedulePriority: z
    .looseObject({})
    .optional()
    .describe('SchedulePriority represents the scheduling priority assigned to workloads.'),
});
export type ResourceBindingSpec = z.infer<typeof resourceBindingSpecSchema>;

export const resourceBindingStatusSchema = z.looseObject({
  schedulerObservedGeneration: int64
    .optional()
    .describe(
      "SchedulerObservedGeneration is the generation (.metadata.generation) observed by the scheduler; less than metadata's means it has not scheduled it yet.",
    ),
  schedulerObservingAffinityName: z
    .string()
    .optional()
    .describe('SchedulerObservingAffinityName is the name of affinity term that is the basis of current scheduling.'),
  lastScheduledTime: timeSchema
    .optional()
    .describe('LastScheduledTime representing the latest timestamp when scheduler successfully finished a scheduling.'),
  conditions: z
    .array(conditionSchema)
    .optional()
    .describe('Conditions contain the different condition statuses (Scheduled, FullyApplied).'),
  aggregatedStatus: z
    .array(
      z.looseObject({
        clusterName: z
          .string()
          .describe('ClusterName represents the member cluster name which the resource deployed on.'),
        status: z.unknown().optional().describe('Status reflects running status of current manifest.'),
        applied: z
          .boolean()
          .optional()
          .describe(
            'Applied represents if the resource referencing by the binding is successfully applied on the cluster.',
          ),
        appliedMessage: z
          .string()
          .optional()
          .describe('AppliedMessage is a human readable message indicating details about the applied status.'),
        health: z
          .enum(['Healthy', 'Unhealthy', 'Unknown'])
          .optional()
          .describe('Health represents the healthy state of the current resource: Healthy, Unhealthy or Unknown.'),
      }),
    )
    .optional()
    .describe('AggregatedStatus represents status list of the resource running in each member cluster.'),
  failBack: z
    .looseObject({
      holdingSince: timeSchema.describe('HoldingSince is when the earlier group became able to hold the workload.'),
      fromGroup: z.string().describe('FromGroup is the affinity group the workload is in now.'),
      toGroup: z.string().describe('ToGroup is the earlier affinity group it would fail back to.'),
    })
    .optional()
    .describe(
      "FailBack (Flotilla): the fail-back this binding waits for, from its hold's start; the rebalancer's record, so that a new leader keeps the clock.",
    ),
  lastFailBackTime: timeSchema
    .optional()
    .describe("LastFailBackTime (Flotilla) is when this binding's latest fail-back was triggered."),
});
export type ResourceBindingStatus = z.infer<typeof resourceBindingStatusSchema>;

export type ResourceBinding = KubeObject<ResourceBindingSpec, ResourceBindingStatus>;
export type ClusterResourceBinding = ResourceBinding;

export const resourceBindingSchema = z.strictObject({
  apiVersion: z.string(),
  kind: z.string(),
  metadata: z.unknown(),
  spec: resourceBindingSpecSchema,
  status: resourceBindingStatusSchema.optional(),
});

export const resourceBindingAdmission: KindAdmission = {
  schema: resourceBindingSchema,
  validate(obj: ResourceBinding): FieldError[] {
    const spec = obj.spec!;
    const errs = spec.placement ? validatePlacement(spec.placement, 'spec.placement') : [];
    const seen = new Set<string>();
    spec.clusters?.forEach((c, i) => {
      if (seen.has(c.name))
        errs.push({ field: `spec.clusters[${i}].name`, message: `Duplicate value: ${JSON.stringify(c.name)}` });
      seen.add(c.name);
    });
    return errs;
  },
  validateUpdate(oldObj: ResourceBinding, newObj: ResourceBinding): FieldError[] {
    const a = oldObj.spec?.resource;
    const b = newObj.spec?.resource;
    if (a && b && (a.kind !== b.kind || a.name !== b.name || (a.namespace ?? '') !== (b.namespace ?? ''))) {
      return [
        {
          field: 'spec.resource',
          message: 'Invalid value: field is immutable: a binding always refers to the same resource',
        },
      ];
    }
    return [];
  },
};
