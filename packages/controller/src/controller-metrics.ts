import { perRegistry } from '@flotilla/runtime';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { WorkQueue, WorkQueueObserver } from './work-queue.js';

/** Reconciles mostly take milliseconds; a slow write or a large sweep item can take seconds. */
export const RECONCILE_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * What operators of Karmada's and KEDA's controllers alert on, for every Flotilla controller: reconciles by result
 * and their duration (controller-runtime's controller_runtime_reconcile_*), work-queue depth and the age of its
 * oldest key (client-go's workqueue_*), and the objects a controller's informers hold (leadership is the runtime's). Every name has
 * the `flotilla_` prefix; the service label comes from the registry's default labels.
 *
 * One set per registry: a controller is rebuilt on every leadership term, its metrics are not.
 */
export class ControllerMetrics {
  private readonly queues = new Map<string, WorkQueue>();
  private readonly objectCounts = new Map<string, () => number>();
  private readonly reconciles: Counter<'controller' | 'result'>;
  private readonly reconcileSeconds: Histogram<'controller'>;
  private readonly queueSeconds: Histogram<'controller'>;
  private readonly passesBegun: Counter<'controller'>;
  private readonly passesCompleted: Counter<'controller'>;
  private readonly passSkips: Counter<'controller'>;

  static readonly of = perRegistry((registry) => new ControllerMetrics(registry));

  private constructor(registry: Registry) {
    const registers = [registry];
    this.reconciles = new Counter({
      name: 'flotilla_reconcile_total',
      help: 'Reconciles by controller and result (success, requeue, error)',
      labelNames: ['controller', 'result'],
      registers,
    });
    this.reconcileSeconds = new Histogram({
      name: 'flotilla_reconcile_duration_seconds',
      help: 'Time one reconcile took',
      labelNames: ['controller'],
      buckets: RECONCILE_BUCKETS,
      registers,
    });
    this.queueSeconds = new Histogram({
      name: 'flotilla_workqueue_queue_duration_seconds',
      help: 'How long a key waited in the work queue before its reconcile started',
      labelNames: ['controller'],
      buckets: RECONCILE_BUCKETS,
      registers,
    });
    this.passesBegun = new Counter({
      name: 'flotilla_reconcile_passes_begun_total',
      help: 'Passes over every key begun (the start, each resync, a sweep a change asked for)',
      labelNames: ['controller'],
      registers,
    });
    this.passesCompleted = new Counter({
      name: 'flotilla_reconcile_passes_total',
      help: 'Passes over every key completed: each key reconciled after the pass visited it',
      labelNames: ['controller'],
      registers,
    });
    this.passSkips = new Counter({
      name: 'flotilla_reconcile_pass_skips_total',
      help: 'Keys a pass found up to date (nothing changed since their last reconcile) and did not queue',
      labelNames: ['controller'],
      registers,
    });
    const queues = this.queues;
    new Gauge({
      name: 'flotilla_workqueue_depth',
      help: 'Keys waiting in the work queue',
      labelNames: ['controller'],
      registers,
      collect() {
        this.reset();
        for (const [controller, q] of queues) this.set({ controller }, q.depth);
      },
    });
    new Gauge({
      name: 'flotilla_workqueue_oldest_item_age_seconds',
      help: 'How long the key waiting longest has waited; growing means the controller falls behind',
      labelNames: ['controller'],
      registers,
      collect() {
        this.reset();
        for (const [controller, q] of queues) this.set({ controller }, q.oldestWaitMs() / 1000);
      },
    });
    const objectCounts = this.objectCounts;
    new Gauge({
      name: 'flotilla_objects',
      help: "Objects of each kind in the leader's informer caches",
      labelNames: ['kind'],
      registers,
      collect() {
        this.reset();
        for (const [kind, count] of objectCounts) this.set({ kind }, count());
      },
    });
  }

  /** The observer to give a WorkQueue: its reconciles are counted and timed under `controller`. */
  observer(controller: string): WorkQueueObserver {
    return {
      reconciled: (result, durationMs, waitedMs) => {
        this.reconciles.inc({ controller, result });
        this.reconcileSeconds.observe({ controller }, durationMs / 1000);
        this.queueSeconds.observe({ controller }, waitedMs / 1000);
      },
    };
  }

  /** A pass over every key began. */
  passBegan(controller: string): void {
    this.passesBegun.inc({ controller });
  }

  /** A pass left a key alone: it was up to date. */
  passSkipped(controller: string): void {
    this.passSkips.inc({ controller });
  }

  /** A pass over every key completed. */
  passCompleted(controller: string): void {
    this.passesCompleted.inc({ controller });
  }

  /** Reports the queue's depth and oldest age under `controller`; a later queue of the same name replaces it. */
  track(controller: string, queue: WorkQueue): void {
    this.queues.set(controller, queue);
  }

  /** Reports how many objects of `kind` there are, asked at every scrape. */
  countObjects(kind: string, count: () => number): void {
    this.objectCounts.set(kind, count);
  }

  /** The controller stopped (leadership ended): its informers are gone, so their counts would be stale. */
  forgetObjects(): void {
    this.objectCounts.clear();
  }
}
