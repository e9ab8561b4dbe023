import { z } from 'zod';
import type { FieldError } from '../errors.js';
import { timeSchema } from '../meta.js';
import type { KubeObject } from '../object.js';
import { dns1123LabelErrors } from '../names.js';
import { int32, int64, labelSelectorSchema, type LabelSelector } from './common.js';
import type { AdmissionContext, KindAdmission } from './kind-admission.js';

// Descriptions follow Karmada's WorkloadRebalancer API (apps.karmada.io/v1alpha1), with Flotilla's departures said.
export const rebalancerObjectReferenceSchema = z
  .strictObject({
    apiVersion: z.string().min(1).describe('APIVersion represents the API version of the target resource.'),
    kind: z.string().min(1).describe('Kind represents the Kind of the target resource.'),
    name: z.string().min(1).describe('Name of the target resource.'),
    namespace: z
      .string()
      .optional()
      .describe(
        'Namespace of the target resource. Default is empty, which means it is a non-namespacescoped resource (required for a namespaced one).',
      ),
  })
  .describe('ObjectReference the expected resource.');
export type RebalancerObjectReference = z.infer<typeof rebalancerObjectReferenceSchema>;

/**
 * Flotilla's extension (asked for in karmada-io/karmada#5206): workloads chosen by labels, optionally narrowed to
 * one apiVersion/kind and one namespace. Resolved when the rebalancer's spec is observed, into the observed list.
 */
export const workloadSelectorSchema = z
  .strictObject({
    apiVersion: z
      .string()
      .min(1)
      .optional()
      .describe('Flotilla: the API version of the workloads selected (required with kind).'),
    kind: z.string().min(1).optional().describe('Flotilla: only workloads of this kind. Unset selects every kind.'),
    namespace: z
      .string()
      .min(1)
      .optional()
      .describe('Flotilla: only workloads in this namespace. Unset selects in every namespace.'),
    labelSelector: labelSelectorSchema.describe(
      'Flotilla: the labels the workloads carry. Must not be empty (it would select every workload).',
    ),
  })
  .describe('Flotilla: workloads chosen by labels, resolved into status.observedWorkloads when the spec is observed.');
export type WorkloadSelector = z.infer<typeof workloadSelectorSchema>;

export const workloadRebalancerSpecSchema = z.strictObject({
  // Karmada's CRD has minItems 1; with workloadSelectors the list may be left out (validate checks one is given).
  workloads: z
    .array(rebalancerObjectReferenceSchema)
    .optional()
    .describe(
      'Workloads used to specify the list of expected resource. Nil or empty list is not allowed (unless workloadSelectors are given).',
    ),
  workloadSelectors: z
    .array(workloadSelectorSchema)
    .optional()
    .describe('Flotilla: workloads chosen by labels, in addition to workloads (karmada-io/karmada#5206).'),
  ttlSecondsAfterFinished: int32
    .optional()
    .describe(
      "TTLSecondsAfterFinished limits the lifetime of a WorkloadRebalancer that has finished execution (means each target workload is finished with result of Successful or Failed). If this field is set, ttlSecondsAfterFinished after the WorkloadRebalancer finishes, it is eligible to be automatically deleted. If this field is unset, the WorkloadRebalancer won't be automatically deleted. If this field is set to zero, the WorkloadRebalancer becomes eligible to be deleted immediately after it finishes. Must not be negative.",
    ),
});
export type WorkloadRebalancerSpec = z.infer<typeof workloadRebalancerSpecSchema>;

export const workloadRebalancerStatusSchema = z.looseObject({
  observedWorkloads: z
    .array(
      z
        .looseObject({
          workload: rebalancerObjectReferenceSchema.describe('Workload the observed resource.'),
          result: z
            .enum(['Successful', 'Failed', ''])
            .optional()
            .describe('Result the observed rebalance result of resource: Successful or Failed.'),
          reason: z
            .string()
            .optional()
            .describe(
              'Reason represents a machine-readable description of why this resource rebalanced failed (ReferencedBindingNotFound).',
            ),
        })
        .describe('ObservedWorkload the observed resource.'),
    )
    .optional()
    .describe('ObservedWorkloads contains information about the execution states and messages of target resources.'),
  observedGeneration: int64
    .optional()
    .describe(
      "ObservedGeneration is the generation(.metadata.generation) observed by the controller. If ObservedGeneration is less than the generation in metadata means the controller hasn't confirmed the rebalance result or hasn't done the rebalance yet.",
    ),
  finishTime: timeSchema.optional().describe('FinishTime represents the finish time of rebalancer.'),
});
export type WorkloadRebalancerStatus = z.infer<typeof workloadRebalancerStatusSchema>;

export type WorkloadRebalancer = KubeObject<WorkloadRebalancerSpec, WorkloadRebalancerStatus>;

export const workloadRebalancerSchema = z.strictObject({
  apiVersion: z.string(),
  kind: z.string(),
  metadata: z.unknown(),
  spec: workloadRebalancerSpecSchema.describe(
    'Spec represents the specification of the desired behavior of WorkloadRebalancer.',
  ),
  status: workloadRebalancerStatusSchema.optional().describe('Status represents the status of WorkloadRebalancer.'),
});

export const workloadRebalancerAdmission: KindAdmission = {
  schema: workloadRebalancerSchema,
  validate(obj: WorkloadRebalancer, ctx: AdmissionContext): FieldError[] {
    const spec = obj.spec!;
    const errs: FieldError[] = [];
    // Karmada admits a negative TTL and treats it as 0; a negative lifetime is a typo, so Flotilla says so.
    if (spec.ttlSecondsAfterFinished !== undefined && spec.ttlSecondsAfterFinished < 0) {
      errs.push({
        field: 'spec.ttlSecondsAfterFinished',
        message: `Invalid value: ${spec.ttlSecondsAfterFinished}: must be greater than or equal to 0`,
      });
    }
    if (!spec.workloads?.length && !spec.workloadSelectors?.length) {
      errs.push({
        field: 'spec.workloads',
        message: spec.workloads
          ? 'Invalid value: must have at least 1 item (or give spec.workloadSelectors)'
          : 'Required value: list the workloads (or give spec.workloadSelectors)',
      });
    }
    (spec.workloads ?? []).forEach((w, i) => {
      const at = `spec.workloads[${i}]`;
      const info = ctx.lookupKind(w.apiVersion, w.kind);
      if (typeof info === 'string') {
        errs.push({ field: `${at}.kind`, message: `Invalid value: ${info}` });
        return;
      }
      // Karmada's WorkloadRebalancer proposal: namespace is required for a namespaced workload and must be empty for a cluster-wide one.
      if (info.namespaced && !w.namespace)
        errs.push({ field: `${at}.namespace`, message: `Required value: ${info.kind} is namespaced` });
      if (!info.namespaced && w.namespace)
        errs.push({
          field: `${at}.namespace`,
          message: `Forbidden: ${info.kind} is cluster-scoped, namespace must be empty`,
        });
    });
    for (const [i, sel] of (spec.workloadSelectors ?? []).entries()) {
      errs.push(...workloadSelectorErrors(sel, `spec.workloadSelectors[${i}]`, ctx));
    }
    return errs;
  },
};

function workloadSelectorErrors(sel: WorkloadSelector, at: string, ctx: AdmissionContext): FieldError[] {
  const errs: FieldError[] = [];
  if (sel.kind !== undefined) {
    if (sel.apiVersion === undefined)
      errs.push({ field: `${at}.apiVersion`, message: `Required value: needed with kind ${sel.kind}` });
    else {
      const info = ctx.lookupKind(sel.apiVersion, sel.kind);
      if (typeof info === 'string') errs.push({ field: `${at}.kind`, message: `Invalid value: ${info}` });
      else if (!info.namespaced && sel.namespace)
        errs.push({
          field: `${at}.namespace`,
          message: `Forbidden: ${info.kind} is cluster-scoped, namespace must be empty`,
        });
    }
  }
  if (sel.namespace)
    for (const m of dns1123LabelErrors(sel.namespace))
      errs.push({ field: `${at}.namespace`, message: `Invalid value: ${JSON.stringify(sel.namespace)}: ${m}` });
  errs.push(...labelSelectorErrors(sel.labelSelector, `${at}.labelSelector`));
  return errs;
}

/** Kubernetes' label-selector rules, and no empty selector: it would rebalance every workload there is. */
function labelSelectorErrors(ls: LabelSelector, at: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!Object.keys(ls.matchLabels ?? {}).length && !ls.matchExpressions?.length) {
    errs.push({
      field: at,
      message: 'Required value: matchLabels or matchExpressions (an empty selector would select every workload)',
    });
  }
  ls.matchExpressions?.forEach((r, j) => {
    const values = r.values ?? [];
    if ((r.operator === 'In' || r.operator === 'NotIn') && values.length === 0) {
      errs.push({
        field: `${at}.matchExpressions[${j}].values`,
        message: `Required value: must be specified when operator is ${r.operator}`,
      });
    }
    if ((r.operator === 'Exists' || r.operator === 'DoesNotExist') && values.length > 0) {
      errs.push({
        field: `${at}.matchExpressions[${j}].values`,
        message: `Forbidden: may not be specified when operator is ${r.operator}`,
      });
    }
  });
  return errs;
}
