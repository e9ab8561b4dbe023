import { z } from 'zod';
import type { FieldError } from '../errors.js';
import { matchesLabelSelector } from '../label-selector.js';
import { int32, labelSelectorSchema, resourceListSchema } from './common.js';
import type { KindAdmission } from './kind-admission.js';

const containerSchema = z.looseObject({
  name: z.string().min(1),
  resources: z
    .looseObject({ requests: resourceListSchema.optional(), limits: resourceListSchema.optional() })
    .optional(),
});

/** The pod spec fields Flotilla reads (requests for placement, node claims for affinity); the rest is kept as given. */
const podSpecSchema = z.looseObject({
  containers: z.array(containerSchema).min(1),
  initContainers: z.array(containerSchema).optional(),
  overhead: resourceListSchema.optional(),
  nodeSelector: z.record(z.string(), z.string()).optional(),
  tolerations: z.array(z.looseObject({})).optional(),
  affinity: z.looseObject({}).optional(),
});

/**
 * Deployment and StatefulSet (apps/v1), validated as Kubernetes validates them where Flotilla depends on it: a
 * selector and a pod template are required, the selector must select the template's labels, and the fields the
 * schedulers read (replicas, container requests and limits, node claims) must have their types. Any other field is
 * stored as given, as for every resource template.
 */
export const workloadTemplateSchema = z.looseObject({
  apiVersion: z.string(),
  kind: z.string(),
  metadata: z.unknown(),
  spec: z.looseObject({
    replicas: int32.min(0).optional(),
    selector: labelSelectorSchema,
    template: z.looseObject({
      metadata: z.looseObject({ labels: z.record(z.string(), z.string()).optional() }).optional(),
      spec: podSpecSchema,
    }),
  }),
  status: z.unknown().optional(),
});
type Workload = z.infer<typeof workloadTemplateSchema>;

function validate(obj: Workload): FieldError[] {
  const { selector, template } = obj.spec;
  const kind = obj.kind.toLowerCase();
  if (!Object.keys(selector.matchLabels ?? {}).length && !selector.matchExpressions?.length)
    return [{ field: 'spec.selector', message: `Invalid value: {}: empty selector is invalid for ${kind}` }];
  if (!matchesLabelSelector(selector, template.metadata?.labels)) {
    return [
      {
        field: 'spec.template.metadata.labels',
        message: `Invalid value: ${JSON.stringify(template.metadata?.labels ?? {})}: \`selector\` does not match template \`labels\``,
      },
    ];
  }
  return [];
}

export const workloadTemplateAdmission: KindAdmission = {
  schema: workloadTemplateSchema,
  validate: validate as KindAdmission['validate'],
  resourceTemplate: true,
};
