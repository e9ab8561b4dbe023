import { z } from 'zod';
import type { FieldError } from '../errors.js';
import { timeSchema } from '../meta.js';
import type { KubeObject } from '../object.js';
import { int32, int64 } from './common.js';
import type { AdmissionContext, KindAdmission } from './kind-admission.js';

export const rebalancerObjectReferenceSchema = z.strictObject({
  apiVersion: z.string().min(1),
  kind: z.string().min(1),
  name: z.string().min(1),
  namespace: z.string().optional(),
});
export type RebalancerObjectReference = z.infer<typeof rebalancerObjectReferenceSchema>;

export const workloadRebalancerSpecSchema = z.strictObject({
  workloads: z.array(rebalancerObjectReferenceSchema).min(1),
  ttlSecondsAfterFinished: int32.optional(),
});
export type WorkloadRebalancerSpec = z.infer<typeof workloadRebalancerSpecSchema>;

export const workloadRebalancerStatusSchema = z.looseObject({
  observedWorkloads: z
    .array(
      z.looseObject({
        workload: rebalancerObjectReferenceSchema,
        result: z.enum(['Successful', 'Failed', '']).optional(),
        reason: z.string().optional(),
      }),
    )
    .optional(),
  observedGeneration: int64.optional(),
  finishTime: timeSchema.optional(),
});
export type WorkloadRebalancerStatus = z.infer<typeof workloadRebalancerStatusSchema>;

export type WorkloadRebalancer = KubeObject<WorkloadRebalancerSpec, WorkloadRebalancerStatus>;

export const workloadRebalancerSchema = z.strictObject({
  apiVersion: z.string(),
  kind: z.string(),
  metadata: z.unknown(),
  spec: workloadRebalancerSpecSchema,
  status: workloadRebalancerStatusSchema.optional(),
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
    spec.workloads.forEach((w, i) => {
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
    return errs;
  },
};
