import { z } from 'zod';
import type { FieldError } from '../errors.js';
import { timeSchema } from '../meta.js';
import type { KubeObject } from '../object.js';
import {
  conditionSchema,
  crossVersionObjectReferenceSchema,
  hpaBehaviorSchema,
  int32,
  metricSpecSchema,
  validateMetrics,
} from './common.js';
import type { AdmissionContext, KindAdmission, ScheduleChecks } from './kind-admission.js';
import { objAt } from './kind-admission.js';
import { validateScaleTargetRef } from './federated-hpa.js';
import { validateBehavior, validateMetricTargets } from './hpa-validation.js';
import { resolveDspConfig } from './dsp-config.js';

export const DEFAULT_PREDICTION_WINDOW_SECONDS = 3600;

const marginFractionSchema = z
  .string()
  .optional()
  .describe('The margin added to the prediction, as a fraction (a string, e.g. "0.1" for 10%). Defaults to 0.');

const dspSchema = z.strictObject({
  sampleInterval: z
    .string()
    .optional()
    .describe('The resolution of the metric history, a duration (e.g. 60s), at most 1h. Defaults to 1m.'),
  historyLength: z
    .string()
    .optional()
    .describe('How much metric history is analysed, a duration (e.g. 15d), at least 48h. Defaults to 15d.'),
  estimators: z
    .strictObject({
      maxValue: z
        .array(z.strictObject({ marginFraction: marginFractionSchema }))
        .optional()
        .describe('Max-value estimators: for each phase, the highest value over all whole periods, plus the margin.'),
      fft: z
        .array(
          z.strictObject({
            marginFraction: marginFractionSchema,
            lowAmplitudeThreshold: z
              .string()
              .optional()
              .describe('Spectrum components below this amplitude are dropped (a string). Defaults to 1.0.'),
            highFrequencyThreshold: z
              .string()
              .optional()
              .describe('Spectrum components above this frequency, in Hz, are dropped (a string). Defaults to 1/3600.'),
            minNumOfSpectrumItems: int32.optional().describe('The fewest spectrum components kept. Defaults to 3.'),
            maxNumOfSpectrumItems: int32.optional().describe('The most spectrum components kept. Defaults to 100.'),
          }),
        )
        .optional()
        .describe("FFT estimators: the history's last period, rebuilt from its main frequencies, plus the margin."),
    })
    .optional()
    .describe("The estimators the best one is chosen from; none given means Crane's eight default FFT estimators."),
});

export const ehpaPredictionSchema = z.strictObject({
  predictionWindowSeconds: int32.min(1).optional().describe('How far ahead the load is predicted, in seconds.'),
  predictionAlgorithm: z
    .strictObject({
      algorithmType: z
        .enum(['dsp', 'percentile'])
        .describe('The prediction algorithm: dsp (periodic load; the one Flotilla runs) or percentile.'),
      dsp: dspSchema.optional().describe('Settings of the dsp algorithm (digital signal processing of the history).'),
      // Percentile is Crane's other algorithm; Flotilla predicts with DSP only and keeps these settings as given.
      percentile: z
        .looseObject({})
        .optional()
        .describe("Settings of Crane's percentile algorithm, kept as given (Flotilla predicts with dsp only)."),
    })
    .optional()
    .describe('How the load is predicted; prediction is on only when this and predictionWindowSeconds are set.'),
});

export const ehpaCronSchema = z.strictObject({
  name: z.string().min(1).describe('Name of the cron window.'),
  description: z.string().optional().describe('What the window is for.'),
  timezone: z.string().optional().describe('IANA time zone start and end are read in. Defaults to UTC.'),
  start: z.string().describe('Cron expression of when the window opens.'),
  end: z.string().describe('Cron expression of when the window closes.'),
  targetReplicas: int32.min(0).describe('The replicas the workload has while the window is open.'),
});
export type EhpaCron = z.infer<typeof ehpaCronSchema>;

/** Crane's EffectiveHorizontalPodAutoscaler spec (reference/crane-ehpa.md section 1). */
export const ehpaSpecSchema = z.strictObject({
  scaleTargetRef: crossVersionObjectReferenceSchema.describe('The workload scaled, e.g. an apps/v1 Deployment.'),
  minReplicas: int32.min(0).optional().describe('The fewest replicas. Defaults to 1.'),
  maxReplicas: int32.describe('The most replicas.'),
  scaleStrategy: z
    .enum(['Auto', 'Preview'])
    .optional()
    .describe(
      'Auto scales the workload; Preview only computes the replicas (or holds specificReplicas). Defaults to Auto.',
    ),
  specificReplicas: int32.min(0).optional().describe('Under Preview: the replicas the workload is held at.'),
  metrics: z.array(metricSpecSchema).optional().describe('What the desired replicas are computed from, as an HPA.'),
  behavior: hpaBehaviorSchema.optional().describe('Scaling rates and stabilization, as an autoscaling/v2 HPA.'),
  prediction: ehpaPredictionSchema.optional().describe("Scale ahead of the load predicted from the metrics' history."),
  crons: z.array(ehpaCronSchema).optional().describe('Windows of time with a fixed replica count.'),
});
export type EffectiveHorizontalPodAutoscalerSpec = z.infer<typeof ehpaSpecSchema>;

export const ehpaStatusSchema = z.looseObject({
  conditions: z
    .array(conditionSchema)
    .optional()
    .describe('The latest observations of the EffectiveHPA: Ready, the HPA conditions, ReplicaOwnerConflict.'),
  currentReplicas: int32.optional().describe("The target workload's current replicas."),
  expectReplicas: int32
    .optional()
    .describe('The replicas the EffectiveHPA computed (under Preview, what it would scale to).'),
  lastScaleTime: timeSchema.optional().describe('The last time the EffectiveHPA scaled the workload.'),
});
export type EffectiveHorizontalPodAutoscalerStatus = z.infer<typeof ehpaStatusSchema>;

export type EffectiveHorizontalPodAutoscaler = KubeObject<
  EffectiveHorizontalPodAutoscalerSpec,
  EffectiveHorizontalPodAutoscalerStatus
>;

export const ehpaSchema = z.strictObject({
  apiVersion: z.string(),
  kind: z.string(),
  metadata: z.unknown(),
  spec: ehpaSpecSchema,
  status: ehpaStatusSchema.optional(),
});

/**
 * Crane parses start/end with robfig's standard parser, where `?` means `*`; the shared cron checker is given
 * the `*` form so that Crane's documented `0 6 ? * *` is accepted.
 */
export function normalizeEhpaSchedule(expr: string): string {
  return expr
    .trim()
    .split(/\s+/)
    .map((f) => (f === '?' ? '*' : f))
    .join(' ');
}

/** Crane's "Local" means the process zone; any other value must be an IANA zone. */
export function ehpaTimeZoneError(tz: string, checks: ScheduleChecks): string | undefined {
  return tz === 'Local' ? undefined : checks.timeZoneError(tz);
}

/**
 * Crane's `EHPACronMetricName`: the name its cron metric carries, lower-cased, so two crons that differ only in
 * letter case would be one metric; Crane's webhook rejects that.
 */
export function ehpaCronMetricName(namespace: string, ehpaName: string, c: EhpaCron): string {
  const raw = `cron-${namespace}-${ehpaName}-${c.name}-${c.timezone ?? ''}-${c.start}-${c.end}`;
  return raw
    .toLowerCase()
    .replaceAll(' ', '')
    .replaceAll('*', 'x')
    .replaceAll('/', 'sl')
    .replaceAll('?', 'qm')
    .replace(/[/.:%]/g, '-');
}

export const ehpaAdmission: KindAdmission = {
  schema: ehpaSchema,
  references: (obj: EffectiveHorizontalPodAutoscaler) => [{ at: 'spec.scaleTargetRef', ...obj.spec?.scaleTargetRef }],
  defaults(obj) {
    const spec = objAt(obj, 'spec');
    if (!spec) return;
    spec.minReplicas ??= 1;
    spec.scaleStrategy ??= 'Auto';
    const prediction = objAt(spec, 'prediction');
    if (prediction) prediction.predictionWindowSeconds ??= DEFAULT_PREDICTION_WINDOW_SECONDS;
  },
  validate(obj: EffectiveHorizontalPodAutoscaler, ctx: AdmissionContext): FieldError[] {
    const spec = obj.spec!;
    const errs = validateScaleTargetRef(spec.scaleTargetRef, 'spec.scaleTargetRef');
    const min = spec.minReplicas ?? 1;
    if (spec.maxReplicas < 1)
      errs.push({
        field: 'spec.maxReplicas',
        message: `Invalid value: ${spec.maxReplicas}: must be greater than or equal to 1`,
      });
    else if (spec.maxReplicas < min) {
      errs.push({
        field: 'spec.maxReplicas',
        message: `Invalid value: ${spec.maxReplicas}: must be greater than or equal to minReplicas (${min})`,
      });
    }
    if (spec.specificReplicas !== undefined && spec.scaleStrategy !== 'Preview') {
      errs.push({ field: 'spec.specificReplicas', message: 'Forbidden: only used with scaleStrategy Preview' });
    }
    errs.push(...validateMetrics(spec.metrics, 'spec.metrics'));
    errs.push(...validateMetricTargets(spec.metrics, 'spec.metrics'));
    errs.push(...validateBehavior(spec.behavior, 'spec.behavior'));
    const algorithm = spec.prediction?.predictionAlgorithm;
    if (algorithm?.algorithmType === 'dsp') {
      errs.push(...resolveDspConfig(algorithm.dsp, 'spec.prediction.predictionAlgorithm.dsp').errors);
    }
    const names = new Set<string>();
    const metricNames = new Map<string, string>();
    spec.crons?.forEach((c, i) => {
      const at = `spec.crons[${i}]`;
      if (names.has(c.name)) errs.push({ field: `${at}.name`, message: `Duplicate value: ${JSON.stringify(c.name)}` });
      names.add(c.name);
      for (const f of ['start', 'end'] as const) {
        if (c[f].trim() === '') {
          errs.push({ field: `${at}.${f}`, message: 'Required value' });
          continue;
        }
        const e = ctx.schedules?.scheduleError(normalizeEhpaSchedule(c[f]));
        if (e) errs.push({ field: `${at}.${f}`, message: e });
      }
      if (c.timezone !== undefined && ctx.schedules) {
        const e = ehpaTimeZoneError(c.timezone, ctx.schedules);
        if (e) errs.push({ field: `${at}.timezone`, message: e });
      }
      const metricName = ehpaCronMetricName(obj.metadata?.namespace ?? '', obj.metadata?.name ?? '', c);
      const clash = metricNames.get(metricName);
      if (clash !== undefined && clash !== c.name) {
        errs.push({
          field: `${at}.name`,
          message: `Duplicate value: ${JSON.stringify(c.name)}: same cron metric as ${JSON.stringify(clash)}`,
        });
      }
      metricNames.set(metricName, c.name);
    });
    return errs;
  },
};
