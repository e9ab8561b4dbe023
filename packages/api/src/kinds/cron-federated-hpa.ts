import { z } from 'zod';
import type { FieldError } from '../errors.js';
import { timeSchema } from '../meta.js';
import type { KubeObject } from '../object.js';
import { crossVersionObjectReferenceSchema, int32 } from './common.js';
import type { AdmissionContext, KindAdmission } from './kind-admission.js';
import { objAt, objectsAt } from './kind-admission.js';
import { validateScaleTargetRef } from './federated-hpa.js';

export const FEDERATED_HPA_API_VERSION = 'autoscaling.karmada.io/v1alpha1';
export const DEFAULT_HISTORY_LIMIT = 3;
/** Enough for every public holiday of several countries; a limit keeps each firing's check cheap. */
export const MAX_EXCLUDE_DATES = 256;

export const cronFederatedHpaRuleSchema = z.strictObject({
  name: z.string().min(1).max(32).describe('Name of the rule, unique within the CronFederatedHPA (1-32 characters).'),
  schedule: z
    .string()
    .min(1)
    .describe('When the rule fires: a cron expression (minute hour day-of-month month day-of-week), read in timeZone.'),
  targetReplicas: int32
    .min(0)
    .optional()
    .describe('The replicas the target workload is scaled to when the rule fires (a workload target only).'),
  targetMinReplicas: int32
    .min(0)
    .optional()
    .describe("The FederatedHPA's minReplicas set when the rule fires (a FederatedHPA target); unset leaves it."),
  targetMaxReplicas: int32
    .min(0)
    .optional()
    .describe("The FederatedHPA's maxReplicas set when the rule fires (a FederatedHPA target); unset leaves it."),
  suspend: z.boolean().optional().describe('True stops the rule firing until it is false again.'),
  timeZone: z
    .string()
    .optional()
    .describe("IANA time zone the schedule is read in, e.g. Asia/Shanghai. Defaults to the cron-scheduler's zone."),
  successfulHistoryLimit: int32
    .min(1)
    .max(32)
    .optional()
    .describe('How many successful executions status keeps (1-32). Defaults to 3.'),
  failedHistoryLimit: int32
    .min(0)
    .max(32)
    .optional()
    .describe('How many failed executions status keeps (0-32). Defaults to 3.'),
  /**
   * A Flotilla extension: days on which the rule does not fire, in its time zone (dates, date ranges and cron day
   * patterns as Alibaba's kubernetes-cronhpa-controller accepts them; packages/cron's exclude-dates.ts).
   */
  excludeDates: z
    .array(z.string())
    .max(MAX_EXCLUDE_DATES)
    .optional()
    .describe(
      'Flotilla: days the rule does not fire on, in its time zone: dates (2026-12-25), ranges and cron day patterns.',
    ),
});
export type CronFederatedHPARule = z.infer<typeof cronFederatedHpaRuleSchema>;

export const cronFederatedHpaSpecSchema = z.strictObject({
  scaleTargetRef: crossVersionObjectReferenceSchema.describe(
    'What the rules scale: a workload (apps/v1 Deployment, StatefulSet) or a FederatedHPA (autoscaling.karmada.io/v1alpha1).',
  ),
  rules: z.array(cronFederatedHpaRuleSchema).describe('The cron rules; each fires on its own schedule.'),
});
export type CronFederatedHPASpec = z.infer<typeof cronFederatedHpaSpecSchema>;

// Status descriptions follow Karmada's CronFederatedHPA API (autoscaling.karmada.io/v1alpha1).
const executionSchema = z.looseObject({
  scheduleTime: timeSchema.describe('ScheduleTime is the expected execution time declared in CronFederatedHPARule.'),
  executionTime: timeSchema.describe(
    'ExecutionTime is the actual execution time of CronFederatedHPARule; it may differ from ScheduleTime.',
  ),
});

export const cronFederatedHpaStatusSchema = z.looseObject({
  executionHistories: z
    .array(
      z.looseObject({
        ruleName: z.string().describe('RuleName is the name of the CronFederatedHPARule.'),
        nextExecutionTime: timeSchema
          .optional()
          .describe('NextExecutionTime is the next time to execute. Nil means the rule has been suspended.'),
        successfulExecutions: z
          .array(
            executionSchema.extend({
              appliedReplicas: int32
                .optional()
                .describe('AppliedReplicas is the replicas have been applied (when the rule sets targetReplicas).'),
              appliedMinReplicas: int32
                .optional()
                .describe(
                  'AppliedMinReplicas is the MinReplicas have been applied (when the rule sets targetMinReplicas).',
                ),
              appliedMaxReplicas: int32
                .optional()
                .describe(
                  'AppliedMaxReplicas is the MaxReplicas have been applied (when the rule sets targetMaxReplicas).',
                ),
            }),
          )
          .optional()
          .describe('SuccessfulExecutions records successful executions.'),
        failedExecutions: z
          .array(
            executionSchema.extend({
              message: z
                .string()
                .describe('Message is the human-readable message indicating details about the failure.'),
            }),
          )
          .optional()
          .describe('FailedExecutions records failed executions.'),
        /** Flotilla's: occurrences not applied because their date is in the rule's excludeDates. */
        skippedExecutions: z
          .array(
            executionSchema.extend({
              reason: z.string().describe('Why the occurrence was skipped, e.g. ExcludedDate.'),
              message: z.string().describe('The human-readable details: which excludeDates entry matched.'),
            }),
          )
          .optional()
          .describe("Flotilla: occurrences not applied because their date is in the rule's excludeDates."),
      }),
    )
    .optional()
    .describe('ExecutionHistories record the execution histories of CronFederatedHPARule.'),
});
export type CronFederatedHPAStatus = z.infer<typeof cronFederatedHpaStatusSchema>;

export type CronFederatedHPA = KubeObject<CronFederatedHPASpec, CronFederatedHPAStatus>;

export const cronFederatedHpaSchema = z.strictObject({
  apiVersion: z.string(),
  kind: z.string(),
  metadata: z.unknown(),
  spec: cronFederatedHpaSpecSchema,
  status: cronFederatedHpaStatusSchema.optional(),
});

/** True when the rules of this CronFederatedHPA set a FederatedHPA's min/max rather than a workload's replicas. */
export function targetsFederatedHpa(ref: { apiVersion?: string | undefined; kind: string }): boolean {
  return ref.apiVersion === FEDERATED_HPA_API_VERSION;
}

function defaults(obj: Record<string, unknown>): void {
  // A FederatedHPA named without its apiVersion can only mean Karmada's: say so once, so that admission and the
  // controller (which dispatch on apiVersion, as Karmada does) agree on what the rules set.
  const ref = objAt(objAt(obj, 'spec'), 'scaleTargetRef');
  if (ref && ref.kind === 'FederatedHPA' && (ref.apiVersion === undefined || ref.apiVersion === ''))
    ref.apiVersion = FEDERATED_HPA_API_VERSION;
  for (const rule of objectsAt(objAt(obj, 'spec'), 'rules')) {
    // Karmada's CronFederatedHPA proposal writes `ruleName`; the API (and shipped Karmada) call it `name`. Accept both.
    if (rule.name === undefined && typeof rule.ruleName === 'string') {
      rule.name = rule.ruleName;
      delete rule.ruleName;
    } else if (rule.ruleName !== undefined && rule.ruleName === rule.name) {
      delete rule.ruleName;
    }
    rule.suspend ??= false;
    rule.successfulHistoryLimit ??= DEFAULT_HISTORY_LIMIT;
    rule.failedHistoryLimit ??= DEFAULT_HISTORY_LIMIT;
  }
}

/** The CronFederatedHPA proposal's webhook rules, as Karmada's `validateCronFederatedHPA` words them, plus Flotilla's stricter checks. */
function validate(obj: CronFederatedHPA, ctx: AdmissionContext): FieldError[] {
  const spec = obj.spec!;
  const ref = spec.scaleTargetRef;
  if (ref.apiVersion === FEDERATED_HPA_API_VERSION && ref.kind !== 'FederatedHPA') {
    return [
      {
        field: 'spec.scaleTargetRef.kind',
        message: `Invalid value: ${JSON.stringify(ref.kind)}: only FederatedHPA is supported in ${FEDERATED_HPA_API_VERSION}`,
      },
    ];
  }
  const errs = validateScaleTargetRef(ref, 'spec.scaleTargetRef');
  if (ref.kind === 'FederatedHPA' && ref.apiVersion && ref.apiVersion !== FEDERATED_HPA_API_VERSION) {
    // The rules cannot be judged against an unclear target, so stop here as Karmada does for a wrong kind.
    errs.push({
      field: 'spec.scaleTargetRef.apiVersion',
      message: `Invalid value: ${JSON.stringify(ref.apiVersion)}: FederatedHPA is served as ${FEDERATED_HPA_API_VERSION}`,
    });
    return errs;
  }
  const fhpa = targetsFederatedHpa(ref);
  const names = new Set<string>();
  spec.rules.forEach((rule, i) => {
    const at = `spec.rules[${i}]`;
    if (names.has(rule.name))
      errs.push({ field: `${at}.name`, message: `Duplicate value: ${JSON.stringify(rule.name)}` });
    names.add(rule.name);
    const cronErr = ctx.schedules?.scheduleError(rule.schedule);
    if (cronErr) errs.push({ field: `${at}.schedule`, message: cronErr });
    if (rule.timeZone !== undefined) {
      const tzErr = ctx.schedules?.timeZoneError(rule.timeZone);
      if (tzErr) errs.push({ field: `${at}.timeZone`, message: tzErr });
    }
    (rule.excludeDates ?? []).forEach((entry, j) => {
      const dateErr = ctx.schedules?.excludeDateError(entry);
      if (dateErr) errs.push({ field: `${at}.excludeDates[${j}]`, message: dateErr });
    });
    if (fhpa) {
      if (rule.targetMinReplicas === undefined && rule.targetMaxReplicas === undefined) {
        errs.push({
          field: `${at}.targetMaxReplicas`,
          message:
            'Required value: targetMinReplicas and targetMaxReplicas cannot both be empty when the target is a FederatedHPA',
        });
        return;
      }
      if (rule.targetMinReplicas !== undefined && rule.targetMinReplicas < 1) {
        errs.push({
          field: `${at}.targetMinReplicas`,
          message: `Invalid value: ${rule.targetMinReplicas}: must be greater than 0`,
        });
      }
      if (rule.targetMaxReplicas !== undefined && rule.targetMaxReplicas < 1) {
        errs.push({
          field: `${at}.targetMaxReplicas`,
          message: `Invalid value: ${rule.targetMaxReplicas}: must be greater than 0`,
        });
      }
      if (
        rule.targetMinReplicas !== undefined &&
        rule.targetMaxReplicas !== undefined &&
        rule.targetMinReplicas > rule.targetMaxReplicas
      ) {
        errs.push({
          field: `${at}.targetMinReplicas`,
          message: `Invalid value: ${rule.targetMinReplicas}: targetMaxReplicas (${rule.targetMaxReplicas}) should be larger than or equal to targetMinReplicas`,
        });
      }
    } else if (rule.targetReplicas === undefined) {
      errs.push({
        field: `${at}.targetReplicas`,
        message: `Required value: targetReplicas cannot be empty when the target is a ${ref.kind || 'workload'}`,
      });
    }
  });
  return errs;
}

export const cronFederatedHpaAdmission: KindAdmission = {
  schema: cronFederatedHpaSchema,
  defaults,
  validate,
  references: (obj: CronFederatedHPA) => [{ at: 'spec.scaleTargetRef', ...obj.spec?.scaleTargetRef }],
};
