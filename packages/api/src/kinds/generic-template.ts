import { z } from 'zod';
import { int32 } from './common.js';
import type { KindAdmission } from './kind-admission.js';

/**
 * Resource templates of upstream kinds (ConfigMap, Secret, Service, ClusterRole, HPA; workloads: workload-template).
 * Flotilla does not re-validate their full upstream schemas: metadata is checked strictly, `spec.replicas` must be a
 * non-negative integer when present (schedulers divide it), and everything else is stored as given.
 */
export const genericTemplateSchema = z.looseObject({
  apiVersion: z.string(),
  kind: z.string(),
  metadata: z.unknown(),
  spec: z.looseObject({ replicas: int32.min(0).optional() }).optional(),
  status: z.unknown().optional(),
});

export const genericTemplateAdmission: KindAdmission = { schema: genericTemplateSchema };
