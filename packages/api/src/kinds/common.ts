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
export const resourceListSchema = z
  .record(z.string(), quantitySchema)
  .describe('Quantities by resource name (cpu, memory, pods, ...), e.g. cpu: 500m, memory: 32Gi.');
export type ResourceList = Record<string, Quantity>;

// Descriptions of the Kubernetes types (metav1, corev1, autoscaling/v2) follow the Kubernetes API reference.
export const labelSelectorRequirementSchema = z.strictObject({
  key: z.string().min(1).describe('key is the label key that the selector applies to.'),
  operator: z
    .enum(['In', 'NotIn', 'Exists', 'DoesNotExist'])
    .describe("operator represents a key's relationship to a set of values: In, NotIn, Exists or DoesNotExist."),
  values: z
    .array(z.string())
    .optional()
    .describe(
      'values is an array of string values. If the operator is In or NotIn, the values array must be non-empty. If the operator is Exists or DoesNotExist, the values array must be empty.',
    ),
});
export type LabelSelectorRequirement = z.infer<typeof labelSelectorRequirementSchema>;

export const labelSelectorSchema = z.strictObject({
  matchLabels: z
    .record(z.string(), z.string())
    .optional()
    .describe(
      'matchLabels is a map of {key,value} pairs; each is a matchExpressions element with operator In and that one value. The requirements are ANDed.',
    ),
  matchExpressions: z
    .array(labelSelectorRequirementSchema)
    .optional()
    .describe('matchExpressions is a list of label selector requirements. The requirements are ANDed.'),
});
export type LabelSelector = z.infer<typeof labelSelectorSchema>;

/** corev1.NodeSelectorRequirement, used by Karmada's field selector. */
export const nodeSelectorRequirementSchema = z.strictObject({
  key: z.string().min(1).describe('The field the selector applies to: provider, region or zone.'),
  operator: z
    .enum(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'])
    .describe("Represents a key's relationship to a set of values: In, NotIn, Exists, DoesNotExist, Gt or Lt."),
  values: z
    .array(z.string())
    .optional()
    .describe(
      'An array of string values. If the operator is In or NotIn, the values array must be non-empty. If the operator is Exists or DoesNotExist, the values array must be empty. If the operator is Gt or Lt, the values array must have a single element, which will be interpreted as an integer.',
    ),
});
export type NodeSelectorRequirement = z.infer<typeof nodeSelectorRequirementSchema>;

export const taintEffectSchema = z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']);
export type TaintEffect = z.infer<typeof taintEffectSchema>;

export const taintSchema = z.strictObject({
  key: z.string().min(1).describe('Required. The taint key to be applied to the cluster.'),
  value: z.string().optional().describe('The taint value corresponding to the taint key.'),
  effect: taintEffectSchema.describe(
    'Required. The effect of the taint on resources that do not tolerate it: NoSchedule, PreferNoSchedule or NoExecute.',
  ),
  timeAdded: timeSchema
    .optional()
    .describe('TimeAdded represents the time at which the taint was added. It is only written for NoExecute taints.'),
});
export type Taint = z.infer<typeof taintSchema>;

export const tolerationSchema = z.strictObject({
  key: z
    .string()
    .optional()
    .describe(
      'Key is the taint key that the toleration applies to. Empty means match all taint keys; then operator must be Exists.',
    ),
  operator: z
    .enum(['Exists', 'Equal'])
    .optional()
    .describe("Operator represents a key's relationship to the value: Exists (any value) or Equal. Defaults to Equal."),
  value: z
    .string()
    .optional()
    .describe('Value is the taint value the toleration matches to. Empty when the operator is Exists.'),
  effect: z
    .union([taintEffectSchema, z.literal('')])
    .optional()
    .describe(
      'Effect indicates the taint effect to match. Empty means match all taint effects; else NoSchedule, PreferNoSchedule or NoExecute.',
    ),
  tolerationSeconds: int64
    .optional()
    .describe(
      'How long a NoExecute taint is tolerated before eviction; unset tolerates it forever, zero or less evicts at once.',
    ),
});
export type Toleration = z.infer<typeof tolerationSchema>;

/** metav1.Condition. Status fields are written by the system, so only types are checked. */
export const conditionSchema = z.looseObject({
  type: z.string().min(1).describe('type of condition in CamelCase, e.g. Ready.'),
  status: z.enum(['True', 'False', 'Unknown']).describe('status of the condition, one of True, False, Unknown.'),
  reason: z
    .string()
    .optional()
    .describe("reason contains a programmatic identifier indicating the reason for the condition's last transition."),
  message: z
    .string()
    .optional()
    .describe('message is a human readable message indicating details about the transition.'),
  lastTransitionTime: timeSchema
    .optional()
    .describe('lastTransitionTime is the last time the condition transitioned from one status to another.'),
  lastUpdateTime: timeSchema
    .optional()
    .describe('The last time this condition was set again with its status unchanged (where that matters).'),
  observedGeneration: int64
    .optional()
    .describe('observedGeneration represents the .metadata.generation that the condition was set based upon.'),
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

const metricTargetSchema = z
  .strictObject({
    type: z
      .enum(['Utilization', 'Value', 'AverageValue'])
      .describe('type represents whether the metric type is Utilization, Value, or AverageValue.'),
    value: quantitySchema.optional().describe('value is the target value of the metric (as a quantity).'),
    averageValue: quantitySchema
      .optional()
      .describe(
        'averageValue is the target value of the average of the metric across all relevant pods (as a quantity).',
      ),
    averageUtilization: int32
      .min(1)
      .optional()
      .describe(
        "averageUtilization is the target value of the average of the resource metric across all relevant pods, as a percentage of the pods' requested value of the resource (Resource and ContainerResource metrics only).",
      ),
  })
  .describe('target specifies the target value for the given metric.');

const metricIdentifierSchema = z
  .strictObject({
    name: z.string().min(1).describe('name is the name of the given metric.'),
    selector: labelSelectorSchema
      .optional()
      .describe(
        'selector is a label selector for the given metric, passed to the metrics server for more specific scoping; when unset, just the metric name is used.',
      ),
  })
  .describe('metric identifies the target metric by name and selector.');

const resourceNameSchema = z
  .string()
  .min(1)
  .describe('name is the name of the resource in question, e.g. cpu or memory.');

/** autoscalingv2.MetricSpec: the member named by `type` must be set. */
export const metricSpecSchema = z.strictObject({
  type: z
    .enum(['Resource', 'ContainerResource', 'Pods', 'Object', 'External'])
    .describe(
      'type is the type of metric source: Resource, ContainerResource, Pods, Object or External, each mapping to the matching field.',
    ),
  resource: z
    .strictObject({ name: resourceNameSchema, target: metricTargetSchema })
    .optional()
    .describe(
      'resource refers to a resource metric (such as those specified in requests and limits) describing each pod in the scale target (e.g. CPU or memory).',
    ),
  containerResource: z
    .strictObject({
      name: resourceNameSchema,
      container: z
        .string()
        .min(1)
        .describe('container is the name of the container in the pods of the scaling target.'),
      target: metricTargetSchema,
    })
    .optional()
    .describe(
      'containerResource refers to a resource metric describing a single container in each pod of the scale target (e.g. CPU or memory).',
    ),
  pods: z
    .strictObject({ metric: metricIdentifierSchema, target: metricTargetSchema })
    .optional()
    .describe(
      'pods refers to a metric describing each pod in the scale target (e.g. transactions-processed-per-second), averaged before it is compared to the target.',
    ),
  object: z
    .strictObject({
      describedObject: crossVersionObjectReferenceSchema.describe(
        'describedObject specifies the object the metric describes (apiVersion, kind, name).',
      ),
      metric: metricIdentifierSchema,
      target: metricTargetSchema,
    })
    .optional()
    .describe('object refers to a metric describing a single Kubernetes object (e.g. hits-per-second on an Ingress).'),
  external: z
    .strictObject({ metric: metricIdentifierSchema, target: metricTargetSchema })
    .optional()
    .describe(
      'external refers to a global metric not associated with any Kubernetes object (e.g. the length of a queue in a cloud messaging service).',
    ),
});
export type MetricSpec = z.infer<typeof metricSpecSchema>;

const scalingPolicySchema = z.strictObject({
  type: z.enum(['Pods', 'Percent']).describe('type is used to specify the scaling policy: Pods or Percent.'),
  value: int32
    .min(1)
    .describe('value contains the amount of change which is permitted by the policy. It must be greater than zero.'),
  periodSeconds: int32
    .min(1)
    .max(1800)
    .describe('periodSeconds specifies the window of time for which the policy should hold true (1-1800).'),
});

const scalingRulesSchema = z.strictObject({
  stabilizationWindowSeconds: int32
    .min(0)
    .max(3600)
    .optional()
    .describe(
      'stabilizationWindowSeconds is the number of seconds for which past recommendations are considered while scaling (0-3600). Defaults to 0 for scale up and 300 for scale down.',
    ),
  selectPolicy: z
    .enum(['Max', 'Min', 'Disabled'])
    .optional()
    .describe('selectPolicy is used to specify which policy should be used: Max (the default), Min or Disabled.'),
  policies: z
    .array(scalingPolicySchema)
    .optional()
    .describe('policies is a list of potential scaling polices which can be used during scaling.'),
  tolerance: quantitySchema
    .optional()
    .describe(
      'tolerance is the ratio between the current and desired metric value under which no scaling is done (e.g. 0.01 for 1%). Defaults to the cluster-wide tolerance (10%).',
    ),
});

/** autoscalingv2.HorizontalPodAutoscalerBehavior. */
export const hpaBehaviorSchema = z.strictObject({
  scaleUp: scalingRulesSchema
    .optional()
    .describe(
      'scaleUp is scaling policy for scaling Up. Defaults to the higher of 4 pods or 100% per 60 seconds, without stabilization.',
    ),
  scaleDown: scalingRulesSchema
    .optional()
    .describe(
      'scaleDown is scaling policy for scaling Down. Defaults to allowing scaling down to minReplicas, with a 300 second stabilization window.',
    ),
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
