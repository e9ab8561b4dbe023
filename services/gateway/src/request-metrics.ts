import type { StatusReason } from '@flotilla/client';
import { perRegistry } from '@flotilla/runtime';
import { Counter, Histogram, type Registry } from 'prom-client';

/** The operation label of the admission webhook's answers (`POST /validate`). */
export const WEBHOOK_OPERATION = 'validate';

/** Where an answer is counted: RequestMetrics, or the webhook thread's messages to the registry's thread. */
export type AnswerMetrics = Pick<RequestMetrics, 'answered'>;

/**
 * The gateway's share of what Kubernetes' API server exports (apiserver_request_total and
 * apiserver_request_duration_seconds): requests by operation and outcome, the outcome being `Success` or the
 * StatusReason of the error reply (NotFound, Invalid, InternalError, …), so failures can be told from bad input.
 */
export class RequestMetrics {
  private readonly requests: Counter<'operation' | 'reason'>;
  private readonly seconds: Histogram<'operation'>;

  static readonly of = perRegistry((registry) => new RequestMetrics(registry));

  private constructor(registry: Registry) {
    this.requests = new Counter({
      name: 'flotilla_api_requests_total',
      help: 'Gateway API requests by operation and outcome (Success or the StatusReason of the error)',
      labelNames: ['operation', 'reason'],
      registers: [registry],
    });
    this.seconds = new Histogram({
      name: 'flotilla_api_request_duration_seconds',
      help: 'Time the gateway took to answer an API request',
      labelNames: ['operation'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    });
  }

  /**
   * `operation` is only one of the API's operations, "unknown" or WEBHOOK_OPERATION, so a client cannot grow the
   * label set.
   */
  answered(operation: string, reason: StatusReason | 'Success', seconds: number): void {
    this.requests.inc({ operation, reason });
    this.seconds.observe({ operation }, seconds);
  }
}
