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

export const objectReferenceSchema = z.strictObject({
  apiVersion: z.string().min(1),
  kind: z.string().min(1),
  namespace: z.string().optional(),
  name: z.string().min(1),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
});
export type BindingObjectReference = z.infer<typeof objectReferenceSchema>;

export const targetClusterSchema = z.strictObject({ name: z.string().min(1), replicas: int32.min(0).optional() });
export type TargetCluster = z.infer<typeof targetClusterSchema>;

const replicaRequirementsSchema = z.strictObject({
  nodeClaim: z
    .strictObject({
      hardNodeAffinity: z
        .strictObject({
          nodeSelectorTerms: z.array(
            z.looseObject({ matchExpressions: z.array(nodeSelectorRequirementSchema).optional() }),
          ),
        })
        .optional(),
      nodeSelector: z.record(z.string(), z.string()).optional(),
      tolerations: z.array(tolerationSchema).optional(),
    })
    .optional(),
  resourceRequest: resourceListSchema.optional(),
  namespace: z.string().optional(),
  priorityClassName: z.string().optional(),
});

export const resourceBindingSpecSchema = z.strictObject({
  resource: objectReferenceSchema,
  propagateDeps: z.boolean().optional(),
  replicaRequirements: replicaRequirementsSchema.optional(),
  replicas: int32.min(0).optional(),
  clusters: z.array(targetClusterSchema).optional(),
  placement: placementSchema.optional(),
  gracefulEvictionTasks: z.array(z.looseObject({ fromCluster: z.string() })).optional(),
  requiredBy: z.array(z.looseObject({})).optional(),
  schedulerName: z.string().optional(),
  failover: failoverBehaviorSchema.optional(),
  conflictResolution: z.enum(['Abort', 'Overwrite']).optional(),
  rescheduleTriggeredAt: timeSchema.optional(),
  suspension: z.looseObject({}).optional(),
  preserveResourcesOnDeletion: z.boolean().optional(),
  components: z.array(z.looseObject({})).optional(),
  schedulePriority: z.looseObject({}).optional(),
});
export type ResourceBindingSpec = z.infer<typeof resourceBindingSpecSchema>;

export const resourceBindingStatusSchema = z.looseObject({
  schedulerObservedGeneration: int64.optional(),
  schedulerObservingAffinityName: z.string().optional(),
  lastScheduledTime: timeSchema.optional(),
  conditions: z.array(conditionSchema).optional(),
  aggregatedStatus: z
    .array(
      z.looseObject({
        clusterName: z.string(),
        status: z.unknown().optional(),
        applied: z.boolean().optional(),
        appliedMessage: z.string().optional(),
        health: z.enum(['Healthy', 'Unhealthy', 'Unknown']).optional(),
      }),
    )
    .optional(),
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
