import { z } from 'zod';
import type { FieldError } from './errors.js';
import { joinPath } from './field-path.js';
import { dns1123LabelErrors, dns1123SubdomainErrors, labelValueErrors, qualifiedNameErrors } from './names.js';

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** Kubernetes ObjectMeta (the fields Flotilla stores; `managedFields` and friends are accepted and kept). */
export interface ObjectMeta {
  name: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: unknown[];
  selfLink?: string;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** An RFC3339 timestamp string, as metav1.Time serialises. */
export const timeSchema = z
  .string()
  .regex(RFC3339, { message: 'must be an RFC3339 timestamp such as 2024-04-17T15:04:05Z' });

export const ownerReferenceSchema = z.strictObject({
  apiVersion: z.string().min(1),
  kind: z.string().min(1),
  name: z.string().min(1),
  uid: z.string().min(1),
  controller: z.boolean().optional(),
  blockOwnerDeletion: z.boolean().optional(),
});

export const objectMetaSchema = z.strictObject({
  name: z.string().min(1),
  generateName: z.string().optional(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  generation: z.int().min(0).optional(),
  creationTimestamp: z.union([timeSchema, z.null()]).optional(),
  deletionTimestamp: timeSchema.optional(),
  deletionGracePeriodSeconds: z.int().min(0).optional(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
  ownerReferences: z.array(ownerReferenceSchema).optional(),
  finalizers: z.array(z.string()).optional(),
  managedFields: z.array(z.unknown()).optional(),
  selfLink: z.string().optional(),
});

/** The total size Kubernetes allows for all annotations of one object. */
export const MAX_ANNOTATIONS_BYTES = 256 * 1024;

/**
 * Name rules on an already type-checked metadata: the name is a DNS-1123 subdomain (or, with
 * `nameIsLabel`, a label of at most `nameMaxLength`), the namespace a DNS-1123 label, label keys and values
 * and annotation keys as Kubernetes requires.
 */
export function validateObjectMeta(
  meta: ObjectMeta,
  opts: { nameIsLabel?: boolean; nameMaxLength?: number } = {},
): FieldError[] {
  const errs: FieldError[] = [];
  const nameErrs = opts.nameIsLabel
    ? dns1123LabelErrors(meta.name, opts.nameMaxLength)
    : dns1123SubdomainErrors(meta.name);
  for (const e of nameErrs)
    errs.push({ field: 'metadata.name', message: `Invalid value: ${JSON.stringify(meta.name)}: ${e}` });
  if (meta.namespace !== undefined) {
    for (const e of dns1123LabelErrors(meta.namespace)) {
      errs.push({ field: 'metadata.namespace', message: `Invalid value: ${JSON.stringify(meta.namespace)}: ${e}` });
    }
  }
  for (const [k, v] of Object.entries(meta.labels ?? {})) {
    const at = joinPath('metadata.labels', k);
    for (const e of qualifiedNameErrors(k))
      errs.push({ field: at, message: `Invalid value: ${JSON.stringify(k)}: ${e}` });
    for (const e of labelValueErrors(v)) errs.push({ field: at, message: `Invalid value: ${JSON.stringify(v)}: ${e}` });
  }
  let annotationBytes = 0;
  for (const [k, v] of Object.entries(meta.annotations ?? {})) {
    annotationBytes += Buffer.byteLength(k) + Buffer.byteLength(v);
    for (const e of qualifiedNameErrors(k)) {
      errs.push({ field: joinPath('metadata.annotations', k), message: `Invalid value: ${JSON.stringify(k)}: ${e}` });
    }
  }
  if (annotationBytes > MAX_ANNOTATIONS_BYTES) {
    errs.push({ field: 'metadata.annotations', message: `Too long: must have at most ${MAX_ANNOTATIONS_BYTES} bytes` });
  }
  return errs;
}
