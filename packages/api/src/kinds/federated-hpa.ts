import { z } from 'zod';
import type { FieldError } from '../errors.js';
import type { KubeObject } from '../object.js';
import {
  conditionSchema,
  crossVersionObjectReferenceSchema,
  defaultHpaBehavior,
  hpaBehaviorSchema,
  int32,
  metricSpecSchema,
  validateMetrics,
  type CrossVersionObjectReference,
} from './common.js';
import type { KindAdmission } from './kind-admission.js';
import { objAt } from './kind-admission.js';
import { validateBehavior, validateMetricTargets } from './hpa-validation.js';
import { clusterAffinitySchema } from './propagation-policy.js';

export const FEDERATED_HPA_ASSIGNMENT_TYPES = [
  'Duplicated',
  'Aggregated',
  'StaticWeighted',
  'DynamicWeighted',
  'Prioritized',
] as const;
export type FederatedHPAAssignmentType = (typeof FEDERATED_HPA_ASSIGNMENT_TYPES)[number];

/** Karmada's FederatedHPA proposal: how FederatedHPA min/max are assigned to member clusters, with per-cluster weight or priority. */
export const federatedHpaAssignmentSchema = z.strictObject({
  federatedHPAAssignmentType: z
    .enum(FEDERATED_HPA_ASSIGNMENT_TYPES)
    .optional()
    .describe(
      'How min/max are spread over the member clusters: Duplicated (each gets them), Aggregated, StaticWeighted, DynamicWeighted (by available replicas) or Prioritized.',
    ),
  clusterAutoscalingPreference: z
    .array(
      z.strictObject({
        targetCluster: clusterAffinitySchema.describe('The member clusters this preference applies to.'),
        staticWeight: int32.optional().describe("The clusters' weight under StaticWeighted."),
        priority: int32.optional().describe("The clusters' priority under Prioritized: higher is filled first."),
      }),
    )
    .optional()
    .describe('Per group of clusters (targetCluster), its weight or priority.'),
});
export type FederatedHPAAssignment = z.infer<typeof federatedHpaAssignmentSchema>;

/** Shipped Karmada (the HPA spec) plus the FederatedHPA proposal's assignment fields. */
export const federatedHpaSpecSchema = z.strictObject({
  scaleTargetRef: crossVersionObjectReferenceSchema.describe('The workload scaled, e.g. an apps/v1 Deployment.'),
  minReplicas: int32.optional().describe('The fewest replicas across all member clusters. Defaults to 1.'),
  maxReplicas: int32.describe('The most replicas across all member clusters.'),
  metrics: z
    .array(metricSpecSchema)
    .optional()
    .describe('What the desired replicas are computed from, as an autoscaling/v2 HPA. Defaults to 80 % CPU.'),
  behavior: hpaBehaviorSchema
    .optional()
    .describe('Scaling up and down rates and stabilization, as an autoscaling/v2 HPA.'),
  clusterAffinity: clusterAffinitySchema.optional().describe('The member clusters the workload is scaled in.'),
  autoscaleMultiClusterDelay: int32
    .min(0)
    .optional()
    .describe('Seconds a cluster stays unable to place replicas before they are scaled in another cluster.'),
  scalingToZero: z.boolean().optional().describe('True lets the replicas go down to 0.'),
  federatedHPAAssignment: federatedHpaAssignmentSchema
    .optional()
    .describe("How min/max are assigned to each member cluster's HPA (Karmada's FederatedHPA proposal)."),
});
export type FederatedHPASpec = z.infer<typeof federatedHpaSpecSchema>;

export const federatedHpaStatusSchema = z.looseObject({
  observedGeneration: z.int().optional().describe('observedGeneration is the most recent generation observed.'),
  lastScaleTime: z
    .string()
    .optional()
    .describe('lastScaleTime is the last time the FederatedHPA scaled the number of replicas.'),
  currentReplicas: int32.optional().describe('currentReplicas is the current number of replicas across all clusters.'),
  desiredReplicas: int32
    .optional()
    .describe('desiredReplicas is the desired number of replicas, as last calculated by the FederatedHPA.'),
  currentMetrics: z
    .array(z.unknown())
    .optional()
    .describe('currentMetrics is the last read state of the metrics used by the FederatedHPA (autoscaling/v2).'),
  conditions: z
    .array(conditionSchema)
    .optional()
    .describe(
      'conditions is the set of conditions required for the FederatedHPA to scale (autoscaling/v2), and ReplicaOwnerConflict.',
    ),
  aggregatedStatus: z.array(z.unknown()).optional().describe("Flotilla: each member cluster's HPA status, by cluster."),
});
export type FederatedHPAStatus = z.infer<typeof federatedHpaStatusSchema>;

export type FederatedHPA = KubeObject<FederatedHPASpec, FederatedHPAStatus>;

export const federatedHpaSchema = z.strictObject({
  apiVersion: z.string(),
  kind: z.string(),
  metadata: z.unknown(),
  spec: federatedHpaSpecSchema,
  status: federatedHpaStatusSchema.optional(),
});

/** Karmada's lifted ValidateCrossVersionObjectReference. */
export function validateScaleTargetRef(ref: CrossVersionObjectReference, at: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of ['kind', 'name'] as const) {
    const v = ref[f];
    if (!v) errs.push({ field: `${at}.${f}`, message: 'Required value' });
    else if (v === '.' || v === '..')
      errs.push({ field: `${at}.${f}`, message: `Invalid value: ${JSON.stringify(v)}: may not be '${v}'` });
    else if (v.includes('/') || v.includes('%'))
      errs.push({ field: `${at}.${f}`, message: `Invalid value: ${JSON.stringify(v)}: may not contain '/' or '%'` });
  }
  return errs;
}

export const federatedHpaAdmission: KindAdmission = {
  schema: federatedHpaSchema,
  references: (obj: FederatedHPA) => [{ at: 'spec.scaleTargetRef', ...obj.spec?.scaleTargetRef }],
  defaults(obj) {
    // Karmada's mutating webhook (lifted HPA defaults) plus the FederatedHPA proposal's Duplicated default.
    const spec = objAt(obj, 'spec');
    if (!spec) return;
    spec.minReplicas ??= 1;
    if (spec.metrics === undefined || (Array.isArray(spec.metrics) && spec.metrics.length === 0)) {
      spec.metrics = [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
      ];
    }
    defaultHpaBehavior(spec.behavior);
    // Without federatedHPAAssignment the object is Karmada's shipped FederatedHPA (one replica count for the
    // template), so a Karmada user's YAML keeps its meaning: only a given assignment gets its Duplicated default.
    const a = objAt(spec, 'federatedHPAAssignment');
    if (a) a.federatedHPAAssignmentType ??= 'Duplicated';
  },
  validate(obj: FederatedHPA): FieldError[] {
    const spec = obj.spec!;
    const errs = validateScaleTargetRef(spec.scaleTargetRef, 'spec.scaleTargetRef');
    const min = spec.minReplicas ?? 1;
    // Karmada's FederatedHPA proposal adds scalingToZero, which lets a FederatedHPA rest at 0; the shipped webhook
    // alone demands 1.
    if (min < 0 || (min < 1 && !spec.scalingToZero)) {
      const floor = spec.scalingToZero
        ? 'greater than or equal to 0'
        : 'greater than or equal to 1 unless scalingToZero is set';
      errs.push({ field: 'spec.minReplicas', message: `Invalid value: ${min}: must be ${floor}` });
    }
    if (spec.maxReplicas < 1)
      errs.push({
        field: 'spec.maxReplicas',
        message: `Invalid value: ${spec.maxReplicas}: must be greater than or equal to 1`,
      });
    else if (spec.maxReplicas < min) {
      errs.push({
        field: 'spec.maxReplicas',
        message: `Invalid value: ${spec.maxReplicas}: must be greater than or equal to minReplicas (${min})`,
      });
    }
    errs.push(...validateMetrics(spec.metrics, 'spec.metrics'));
    errs.push(...validateMetricTargets(spec.metrics, 'spec.metrics'));
    errs.push(...validateBehavior(spec.behavior, 'spec.behavior'));
    const a = spec.federatedHPAAssignment;
    const type = a?.federatedHPAAssignmentType;
    a?.clusterAutoscalingPreference?.forEach((p, i) => {
      const at = `spec.federatedHPAAssignment.clusterAutoscalingPreference[${i}]`;
      if (p.staticWeight !== undefined && p.staticWeight <= 0) {
        errs.push({ field: `${at}.staticWeight`, message: `Invalid value: ${p.staticWeight}: must be greater than 0` });
      }
      // A weight or priority is only meaningful for clusters the preference picks out; an affinity that names none
      // (or only excludes) would apply it to every cluster.
      const t = p.targetCluster;
      const namesNone = !t.clusterNames?.length && !t.labelSelector && !t.fieldSelector;
      if ((type === 'StaticWeighted' || type === 'Prioritized') && namesNone) {
        errs.push({
          field: `${at}.targetCluster`,
          message: `Required value: a ${type} preference must name its clusters (clusterNames, labelSelector or fieldSelector)`,
        });
      }
      if (a.federatedHPAAssignmentType === 'StaticWeighted' && p.staticWeight === undefined) {
        errs.push({
          field: `${at}.staticWeight`,
          message: 'Required value: StaticWeighted assignment needs a staticWeight per preference',
        });
      }
      if (a.federatedHPAAssignmentType === 'Prioritized' && p.priority === undefined) {
        errs.push({
          field: `${at}.priority`,
          message: 'Required value: Prioritized assignment needs a priority per preference',
        });
      }
    });
    return errs;
  },
};
