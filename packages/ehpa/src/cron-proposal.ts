import type { EffectiveHorizontalPodAutoscalerSpec } from '@flotilla/api';
import { CronWindowError, cronMetric, nextCronBoundary, type ActiveCron } from '@flotilla/prediction';
import type { SourceProposal } from './sources.js';

export type CronProposal = SourceProposal & {
  activeCrons: ActiveCron[];
  /** When a window next starts or ends: the controller re-evaluates then. */
  nextBoundary?: Date;
};

/**
 * The cron source: minReplicas raised by every active window's targetReplicas (Crane v0.8+'s cron metric value),
 * proposed as exactly that many replicas. Flotilla departs from Crane here on purpose: Crane feeds the value to the
 * HPA as an External metric with target AverageValue 1, so the HPA's 10 % tolerance swallows a window asking for a
 * count within 10 % of the current one (22 -> 24 is a ratio of 1.09 and never happens, gocrane/crane#836). The
 * window is still not a pin: the other sources, min/max, behavior and the scale-up limit apply as to any proposal.
 * Undefined without crons; an unparseable window makes the proposal invalid.
 */
export function cronProposal(
  spec: EffectiveHorizontalPodAutoscalerSpec,
  now: Date,
  controllerZone = 'UTC',
): CronProposal | undefined {
  if (!spec.crons?.length) return undefined;
  let metric: ReturnType<typeof cronMetric>;
  try {
    metric = cronMetric(spec.crons, spec.minReplicas ?? 1, now, controllerZone);
  } catch (err) {
    if (!(err instanceof CronWindowError)) throw err;
    return { source: 'cron', reason: 'FailedGetExternalMetric', message: err.message, activeCrons: [] };
  }
  const activeCrons = metric.activeCrons;
  const nextBoundary = nextCronBoundary(spec.crons, now, controllerZone);
  const names = activeCrons.map((c) => c.name).join(', ');
  return {
    source: 'cron',
    replicas: metric.metricValue,
    metricValue: metric.metricValue,
    detail: activeCrons.length ? `active: ${names}` : 'no active window: minReplicas',
    activeCrons,
    ...(nextBoundary ? { nextBoundary } : {}),
  };
}
