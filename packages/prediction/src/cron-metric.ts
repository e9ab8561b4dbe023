import {
  isCronWindowActive,
  nextFireSeconds,
  parseCronWindow,
  type CronWindow,
  type ParsedCronWindow,
} from './cron-window.js';

export interface ActiveCron {
  readonly name: string;
  readonly targetReplicas: number;
}

export interface CronMetric {
  /** The windows active at `now`, in spec order. */
  readonly activeCrons: ActiveCron[];
  /** What the `crane_autoscaling_cron` metric reports (the HPA reads it against a target AverageValue of 1). */
  readonly metricValue: number;
}

function parseAll(crons: readonly CronWindow[], controllerZone: string, path: string): ParsedCronWindow[] {
  return crons.map((c, i) => parseCronWindow(c, `${path}[${i}]`, controllerZone));
}

/**
 * The value of an EHPA's cron metric at `now`, by Crane v0.8+ rules (`external_metric_provider.go`): start from
 * `minReplicas` and take each active window's `targetReplicas` that is ≥ the running value; no active window →
 * `minReplicas`. Throws {@link CronWindowError} when a window cannot be parsed (Crane fails the metric).
 */
export function cronMetric(
  crons: readonly CronWindow[],
  minReplicas: number,
  now: Date,
  controllerZone = 'UTC',
  path = 'spec.crons',
): CronMetric {
  const activeCrons: ActiveCron[] = [];
  let metricValue = minReplicas;
  for (const w of parseAll(crons, controllerZone, path)) {
    if (!isCronWindowActive(w, now)) continue;
    activeCrons.push({ name: w.cron.name, targetReplicas: w.cron.targetReplicas });
    if (w.cron.targetReplicas >= metricValue) metricValue = w.cron.targetReplicas;
  }
  return { activeCrons, metricValue };
}

/**
 * The next instant, strictly after `now`, at which any window starts or ends: where a timer re-evaluates
 * {@link cronMetric} so that a boundary takes effect within a second. Undefined when no window has a boundary
 * left (or there are no windows).
 */
export function nextCronBoundary(
  crons: readonly CronWindow[],
  now: Date,
  controllerZone = 'UTC',
  path = 'spec.crons',
): Date | undefined {
  let next = Number.POSITIVE_INFINITY;
  for (const w of parseAll(crons, controllerZone, path)) {
    for (const s of [w.start, w.end]) {
      const t = nextFireSeconds(s, w.zone, now);
      if (t > now.getTime() / 1000 && t < next) next = t;
    }
  }
  return Number.isFinite(next) ? new Date(next * 1000) : undefined;
}
