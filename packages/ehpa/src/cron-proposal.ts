import type { EffectiveHorizontalPodAutoscalerSpec, MetricSpec } from '@flotilla/api';
import { CRON_METRIC_NAME, proposeForMetric } from '@flotilla/hpa-math';
import { CronWindowError, cronMetric, nextCronBoundary, type ActiveCron } from '@flotilla/prediction';
import type { SourceProposal } from './sources.js';

const CRON_METRIC: MetricSpec = {
  type: 'External',
  external: { metric: { name: CRON_METRIC_NAME }, target: { type: 'AverageValue', averageValue: '1' } },
};

export type CronProposal = SourceProposal & {
  activeCrons: ActiveCron[];
  /** When a window next starts or ends: the controller re-evaluates then. */
  nextBoundary?: Date;
};

/**
 * The cron source as Crane feeds it to the HPA: one External metric with target AverageValue 1 whose value is
 * minReplicas raised by every active window's targetReplicas (v0.8+). It is not a pin: the HPA's tolerance, the
 * other sources and behavior still apply. Undefined without crons; an unparseable window makes the metric invalid.
 */
export function cronProposal(
  spec: EffectiveHorizontalPodAutoscalerSpec,
  now: Date,
  statusReplicas: number,
  controllerZone = 'UTC',
  tolerance?: number,
): CronProposal | undefined {
  if (!spec.crons?.length) return undefined;
  let metric;
  try {
    metric = cronMetric(spec.crons, spec.minReplicas ?? 1, now, controllerZone);
  } catch (err) {
    if (!(err instanceof CronWindowError)) throw err;
    return { source: 'cron', reason: 'FailedGetExternalMetric', message: err.message, activeCrons: [] };
  }
  const p = proposeForMetric(
    CRON_METRIC,
    { kind: 'total', totalMilli: metric.metricValue * 1000, podStates: [] },
    { specReplicas: statusReplicas, statusReplicas, ...(tolerance === undefined ? {} : { tolerance }) },
  );
  const activeCrons = metric.activeCrons;
  const nextBoundary = nextCronBoundary(spec.crons, now, controllerZone);
  if (!('replicas' in p)) {
    return {
      source: 'cron',
      reason: p.reason ?? 'FailedGetExternalMetric',
      message: p.error.message,
      activeCrons,
      ...(nextBoundary ? { nextBoundary } : {}),
    };
  }
  const names = activeCrons.map((c) => c.name).join(', ');
  return {
    source: 'cron',
    replicas: p.replicas,
    metricValue: metric.metricValue,
    detail: activeCrons.length ? `active: ${names}` : 'no active window: minReplicas',
    activeCrons,
    ...(nextBoundary ? { nextBoundary } : {}),
  };
}
