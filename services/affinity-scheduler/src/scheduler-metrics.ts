import { perRegistry } from '@flotilla/runtime';
import { Counter, Histogram, type Registry } from 'prom-client';

/**
 * The scheduler's metrics under Karmada's names, so Karmada's dashboards and alerts read them unchanged.
 * Results follow kube-scheduler's schedule_attempts_total: `scheduled`, `unschedulable` (no cluster fits: the binding
 * keeps its clusters and is retried) and `error` (the result could not be written). `schedule_type` is why the
 * binding was scheduled (Karmada's doScheduleBinding branches: PlacementChanged, ReplicasChanged, …).
 */
export class SchedulerMetrics {
  readonly attempts: Counter<'result' | 'schedule_type'>;
  /** The placement algorithm alone (filter, score, select, divide replicas), without reads or writes. */
  readonly algorithmSeconds: Histogram;
  /** From the moment the binding's change reached the scheduler's queue to the decision written and announced. */
  readonly e2eSeconds: Histogram<'result' | 'schedule_type'>;

  static readonly of = perRegistry((registry) => new SchedulerMetrics(registry));

  private constructor(registry: Registry) {
    const registers = [registry];
    this.attempts = new Counter({
      name: 'karmada_scheduler_schedule_attempts_total',
      help: 'Number of attempts to schedule a binding, by result and schedule type',
      labelNames: ['result', 'schedule_type'],
      registers,
    });
    this.algorithmSeconds = new Histogram({
      name: 'karmada_scheduler_scheduling_algorithm_duration_seconds',
      help: 'Scheduling algorithm latency in seconds',
      buckets: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1],
      registers,
    });
    this.e2eSeconds = new Histogram({
      name: 'karmada_scheduler_e2e_scheduling_duration_seconds',
      help: 'End-to-end scheduling latency in seconds: queued change to written decision',
      labelNames: ['result', 'schedule_type'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
  }
}
