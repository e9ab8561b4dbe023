import { perRegistry } from '@flotilla/runtime';
import { Counter, Histogram, type Registry } from 'prom-client';

/**
 * What CronFederatedHPA's users watch: executions by result (the status' successful and failed execution histories,
 * as counters) and how late each ran after its scheduled instant, which grows when the controller falls behind or
 * catches up after an outage.
 */
export class CronMetrics {
  readonly executions: Counter<'result'>;
  readonly lateness: Histogram;
  readonly fencingRefusals: Counter;

  static readonly of = perRegistry((registry) => new CronMetrics(registry));

  private constructor(registry: Registry) {
    this.executions = new Counter({
      name: 'flotilla_cron_executions_total',
      help: "CronFederatedHPA rule executions by result (succeeded, failed, missed: due longer ago than the catch-up window, skipped: on a date of the rule's excludeDates)",
      labelNames: ['result'],
      registers: [registry],
    });
    this.lateness = new Histogram({
      name: 'flotilla_cron_execution_lateness_seconds',
      help: 'How long after its scheduled instant a rule execution was applied',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900],
      registers: [registry],
    });
    this.fencingRefusals = new Counter({
      name: 'flotilla_cron_fencing_refused_total',
      help: 'Target writes refused because the target carried a later leader’s fencing token (this replica was deposed)',
      registers: [registry],
    });
  }

  executed(ok: boolean, scheduleTime: Date, executionTime: Date): void {
    this.executions.inc({ result: ok ? 'succeeded' : 'failed' });
    this.lateness.observe(Math.max(0, executionTime.getTime() - scheduleTime.getTime()) / 1000);
  }

  /** An occurrence skipped because it was due longer ago than the catch-up window (an outage, a late start). */
  missed(count: number): void {
    if (count > 0) this.executions.inc({ result: 'missed' }, count);
  }

  /** An occurrence not applied because its date is in the rule's excludeDates. */
  skipped(count: number): void {
    if (count > 0) this.executions.inc({ result: 'skipped' }, count);
  }

  /** A target write refused by its fencing token: a later leader wrote the target. */
  fencingRefused(): void {
    this.fencingRefusals.inc();
  }
}
