import type { FieldError } from '../errors.js';
import { parseQuantity } from '../quantity.js';
import { MEMBER_OF, type HpaBehavior, type MetricSpec } from './common.js';

type Target = { type: string; value?: string | number; averageValue?: string | number; averageUtilization?: number };

/**
 * The target rules of Kubernetes' HPA validation (validateMetricTarget and the per-source checks): values must be
 * positive, a Resource target needs a utilization or an averageValue but not both, a Pods target an averageValue,
 * an Object or External target a value or an averageValue. What validateMetrics checks (the source named by type
 * is set) comes first; a missing source is not judged again here.
 */
export function validateMetricTargets(metrics: readonly MetricSpec[] | undefined, base: string): FieldError[] {
  const errs: FieldError[] = [];
  (metrics ?? []).forEach((m, i) => {
    const member = MEMBER_OF[m.type];
    const target = (m[member] as { target?: Target } | undefined)?.target;
    if (!target) return;
    const at = `${base}[${i}].${member}.target`;
    for (const f of ['value', 'averageValue'] as const) {
      const q = target[f];
      if (q !== undefined && !(parseQuantity(q) > 0))
        errs.push({ field: `${at}.${f}`, message: `Invalid value: ${JSON.stringify(q)}: must be positive` });
    }
    if (m.type === 'Resource' || m.type === 'ContainerResource') {
      if (target.averageUtilization === undefined && target.averageValue === undefined) {
        errs.push({
          field: `${at}.averageUtilization`,
          message: 'Required value: must set either a target raw value or a target utilization',
        });
      } else if (target.averageUtilization !== undefined && target.averageValue !== undefined) {
        errs.push({
          field: `${at}.averageValue`,
          message: 'Forbidden: may not set both a target raw value and a target utilization',
        });
      }
    } else if (m.type === 'Pods') {
      if (target.averageValue === undefined)
        errs.push({
          field: `${at}.averageValue`,
          message: 'Required value: must specify a positive target averageValue',
        });
    } else if (target.value === undefined && target.averageValue === undefined) {
      errs.push({ field: `${at}.value`, message: 'Required value: must set either a target value or averageValue' });
    }
  });
  return errs;
}

/**
 * Kubernetes' validateScalingRules beyond what the schema bounds: a rule that lists its policies must list at least
 * one (defaulting fills only an absent list, so an explicit empty one reaches validation).
 */
export function validateBehavior(behavior: HpaBehavior | undefined, base: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const direction of ['scaleUp', 'scaleDown'] as const) {
    const rules = behavior?.[direction];
    if (rules?.policies && rules.policies.length === 0) {
      errs.push({
        field: `${base}.${direction}.policies`,
        message: 'Required value: must specify at least one Policy',
      });
    }
  }
  return errs;
}
