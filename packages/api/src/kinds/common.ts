import { z } from 'zod';
import { isQuantity } from '../quantity.js';
import { timeSchema } from '../meta.js';

/**
 * int32 as Kubernetes serialises it; the range check catches YAML typos like 1e12. Not zod's `z.int32()`: that checks
 * the safe-integer range first, so 2^53+1 was reported against 2^53 rather than against int32's own bound.
 */
export const int32 = z
  .number()
  .min(-2147483648)
  .max(2147483647)
  .check((ctx) => {
    if (!Number.isInteger(ctx.value))
      ctx.issues.push({ code: 'invalid_type', expected: 'int', input: ctx.value, inst: int32 as never });
  });
export const int64 = z.int();

/** A resource quantity: "500m", "2", "32Gi" or a plain number. */
export const quantitySchema = z.union([z.string(), z.number()]).refine((q) => isQuantity(q), {
  message: 'must be a quantity such as 500m, 2 or 32Gi',
});
export type Quantity = string | number;

/** corev1.ResourceList: resource name to quantity. */
export const resourceListSchema = z.record(z.string(), quantitySchema);
export type ResourceList = Record<string, Quantity>;

export const labelSelectorRequirementSchema = z.strictObject({
  key: z.string().min(1),
  operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist']),
  values: z.array(z.string()).optional(),
});
export type LabelSelectorRequirement = z.infer<typeof labelSelectorRequirementSchema>;

export const labelSelectorSchema = z.strictObject({
  matchLabels: z.record(z.string(), z.string()).optional(),
  matchExpressions: z.array(labelSelectorRequirementSchema).optional(),
});
export type LabelSelector = z.infer<typeof labelSelectorSchema>;

/** corev1.NodeSelectorRequirement, used by Karmada's field selector. */
export const nodeSelectorRequirementSchema = z.strictObject({
  key: z.string().min(1),
  operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt']),
  values: z.array(z.string()).optional(),
});
export type NodeSelectorRequirement = z.infer<typeof nodeSelectorRequirementSchema>;

export const taintEffectSchema = z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']);
export type TaintEffect = z.infer<typeof taintEffectSchema>;

export const taintSchema = z.strictObject({
  key: z.string().min(1),
  value: z.string().optional(),
  effect: taintEffectSchema,
  timeAdded: timeSchema.optional(),
});
export type Taint = z.infer<typeof taintSchema>;

export const tolerationSchema = z.strictObject({
  key: z.string().optional(),
  operator: z.enum(['Exists', 'Equal']).optional(),
  value: z.string().optional(),
  effect: z.union([taintEffectSchema, z.literal('')]).optional(),
  tolerationSeconds: int64.optional(),
});
export type Toleration = z.infer<typeof tolerationSchema>;

/** metav1.Condition. Status fields are written by the system, so only types are checked. */
export const conditionSchema = z.looseObject({
  type: z.string().min(1),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string().optional(),
  message: z.string().optional(),
  lastTransitionTime: timeSchema.optional(),
  lastUpdateTime: timeSchema.optional(),
  observedGeneration: int64.optional(),
});
/** metav1.Condition, with apps/v1 DeploymentCondition's `lastUpdateTime` where a condition needs it. */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  /**
   * The last time the condition was set again, its status unchanged (apps/v1 DeploymentCondition's field): when
   * each occurrence matters, not only the first (an apply whose replicas were retained, made again).
   */
  lastUpdateTime?: string;
  observedGeneration?: number;
}

/** autoscalingv2.CrossVersionObjectReference. */
export const crossVersionObjectReferenceSchema = z.strictObject({
  apiVersion: z.string().optional().describe('API version of the referent, e.g. apps/v1.'),
  kind: z.string().describe('Kind of the referent, e.g. Deployment.'),
  name: z.string().describe('Name of the referent, in the same namespace.'),
});
export type CrossVersionObjectReference = z.infer<typeof crossVersionObjectReferenceSchema>;

const metricTargetSchema = z.strictObject({
  type: z.enum(['Utilization', 'Value', 'AverageValue']),
  value: quantitySchema.optional(),
  averageValue: quantitySchema.optional(),
  averageUtilization: int32.min(1).optional(),
});

const metricIdentifierSchema = z.strictObject({
  name: z.string().min(1),
  selector: labelSelectorSchema.optional(),
});

/** autoscalingv2.MetricSpec: the member named by `type` must be set. */
export const metricSpecSchema = z.strictObject({
  type: z.enum(['Resource', 'ContainerResource', 'Pods', 'Object', 'External']),
  resource: z.strictObject({ name: z.string().min(1), target: metricTargetSchema }).optional(),
  containerResource: z
    .strictObject({ name: z.string().min(1), container: z.string().min(1), target: metricTargetSchema })
    .optional(),
  pods: z.strictObject({ metric: metricIdentifierSchema, target: metricTargetSchema }).optional(),
  object: z
    .strictObject({
      describedObject: crossVersionObjectReferenceSchema,
      metric: metricIdentifierSchema,
      target: metricTargetSchema,
    })
    .optional(),
  external: z.strictObject({ metric: metricIdentifierSchema, target: metricTargetSchema }).optional(),
});
export type MetricSpec = z.infer<typeof metricSpecSchema>;

const scalingPolicySchema = z.strictObject({
  type: z.enum(['Pods', 'Percent']),
  value: int32.min(1),
  periodSeconds: int32.min(1).max(1800),
});

const scalingRulesSchema = z.strictObject({
  stabilizationWindowSeconds: int32.min(0).max(3600).optional(),
  selectPolicy: z.enum(['Max', 'Min', 'Disabled']).optional(),
  policies: z.array(scalingPolicySchema).optional(),
  tolerance: quantitySchema.optional(),
});

/** autoscalingv2.HorizontalPodAutoscalerBehavior. */
export const hpaBehaviorSchema = z.strictObject({
  scaleUp: scalingRulesSchema.optional(),
  scaleDown: scalingRulesSchema.optional(),
});
export type HpaBehavior = z.infer<typeof hpaBehaviorSchema>;

/** The MetricSpec member each metric type names. */
export const MEMBER_OF: Record<MetricSpec['type'], keyof MetricSpec> = {
  Resource: 'resource',
  ContainerResource: 'containerResource',
  Pods: 'pods',
  Object: 'object',
  External: 'external',
};

/** The HPA's own rule: the metric source named by `type` must be populated, and only that one. */
export function validateMetrics(
  metrics: readonly MetricSpec[] | undefined,
  base: string,
): { field: string; message: string }[] {
  const errs: { field: string; message: string }[] = [];
  (metrics ?? []).forEach((m, i) => {
    const member = MEMBER_OF[m.type];
    if (m[member] === undefined)
      errs.push({
        field: `${base}[${i}].${member}`,
        message: 'Required value: must populate information for the given metric source',
      });
    for (const other of Object.values(MEMBER_OF)) {
      if (other !== member && m[other] !== undefined) {
        errs.push({
          field: `${base}[${i}].${other}`,
          message: `Forbidden: must populate the given metric source only (type is ${m.type})`,
        });
      }
    }
    const target = (m[member] as { target?: { type: string; averageUtilization?: number } } | undefined)?.target;
    if (target?.type === 'Utilization' && m.type !== 'Resource' && m.type !== 'ContainerResource') {
      errs.push({
        field: `${base}[${i}].${member}.target.type`,
        message: 'Unsupported value: "Utilization": only Resource and ContainerResource metrics support it',
      });
    }
  });
  return errs;
}

/** Defaults Kubernetes applies to an HPA behavior that is present (autoscaling/v2 SetDefaults). */
export function defaultHpaBehavior(behavior: unknown): void {
  if (typeof behavior !== 'object' || behavior === null || Array.isArray(behavior)) return;
  const b = behavior as Record<string, unknown>;
  b.scaleUp ??= {};
  const up = b.scaleUp as Record<string, unknown>;
  if (typeof up === 'object' && up !== null && !Array.isArray(up)) {
    up.stabilizationWindowSeconds ??= 0;
    up.selectPolicy ??= 'Max';
    up.policies ??= [
      { type: 'Pods', value: 4, periodSeconds: 15 },
      { type: 'Percent', value: 100, periodSeconds: 15 },
    ];
  }
  b.scaleDown ??= {};
  const down = b.scaleDown as Record<string, unknown>;
  if (typeof down === 'object' && down !== null && !Array.isArray(down)) {
    down.selectPolicy ??= 'Max';
    down.policies ??= [{ type: 'Percent', value: 100, periodSeconds: 15 }];
  }
}
