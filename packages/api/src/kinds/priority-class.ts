import { z } from 'zod';
import { int32 } from './common.js';
import { genericTemplateSchema } from './generic-template.js';
import type { KindAdmission } from './kind-admission.js';

/**
 * The largest value a PriorityClass of a user may have; higher ones are kept for `system-` classes (Kubernetes'
 * HighestUserDefinablePriority).
 */
export const HIGHEST_USER_PRIORITY = 1_000_000_000;

/**
 * Kubernetes' PriorityClass (scheduling.k8s.io/v1), a resource template like any other: a policy's
 * `schedulePriority` names one, and its `value` orders the scheduler's queue (Karmada's PriorityBasedScheduling).
 * `value` is required and a 32-bit integer, at most HIGHEST_USER_PRIORITY unless the name starts with `system-`.
 */
export const priorityClassSchema = genericTemplateSchema.extend({
  value: int32.describe('The integer value of this priority class: higher is scheduled first.'),
  globalDefault: z.boolean().optional(),
  description: z.string().optional(),
  preemptionPolicy: z.enum(['PreemptLowerPriority', 'Never']).optional(),
});
export type PriorityClass = z.infer<typeof priorityClassSchema>;

export const priorityClassAdmission: KindAdmission = {
  schema: priorityClassSchema,
  resourceTemplate: true,
  validate(obj: PriorityClass) {
    const name = (obj.metadata as { name?: string } | undefined)?.name ?? '';
    if (obj.value > HIGHEST_USER_PRIORITY && !name.startsWith('system-'))
      return [
        {
          field: 'value',
          message: `must be at most ${HIGHEST_USER_PRIORITY} (higher values are kept for system- classes), got ${obj.value}`,
        },
      ];
    return [];
  },
};
