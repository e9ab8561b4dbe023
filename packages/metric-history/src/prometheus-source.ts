import { PrometheusQueryError } from './errors.js';
import { renderQuery } from './query-template.js';
import { parseRangeResponse, singleSeries } from './range-response.js';
import type { HistoryRange, MetricHistorySource, Sample, WorkloadRef } from './sample.js';

export interface PrometheusSourceOptions {
  /** Base URL of the Prometheus HTTP API, e.g. http://prometheus:9090 (PROMETHEUS_URL). */
  url: string;
  /** PromQL with `{{namespace}}`, `{{kind}}`, `{{name}}`, `{{nameRegex}}` placeholders; one series per workload. */
  queryTemplate: string;
  /** Gives up on a query after this long. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/**
 * History from Prometheus' `query_range`, as Crane's prediction reads it: `step` is the sample interval, and the
 * answer's one series is the workload's usage. Prometheus limits a query to 11,000 points, so long histories at a
 * fine step are read in consecutive windows.
 */
export class PrometheusSource implements MetricHistorySource {
  private readonly fetch: typeof fetch;
  static readonly MAX_POINTS_PER_QUERY = 11_000;

  constructor(private readonly o: PrometheusSourceOptions) {
    this.fetch = o.fetch ?? fetch;
  }

  async range(workload: WorkloadRef, r: HistoryRange): Promise<Sample[]> {
    const query = renderQuery(this.o.queryTemplate, workload);
    const startS = Math.floor(r.start.getTime() / 1000);
    const endS = Math.floor(r.end.getTime() / 1000);
    const window = (PrometheusSource.MAX_POINTS_PER_QUERY - 1) * r.stepSeconds;
    const out: Sample[] = [];
    for (let from = startS; from <= endS; from += window + r.stepSeconds) {
      const to = Math.min(endS, from + window);
      out.push(...(await this.queryRange(query, from, to, r.stepSeconds)));
    }
    return out;
  }

  private async queryRange(query: string, start: number, end: number, step: number): Promise<Sample[]> {
    const url = new URL('api/v1/query_range', this.o.url.endsWith('/') ? this.o.url : `${this.o.url}/`);
    const body = new URLSearchParams({ query, start: String(start), end: String(end), step: `${step}s` });
    let res: Response;
    try {
      res = await this.fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
        signal: AbortSignal.timeout(this.o.timeoutMs ?? 30_000),
      });
    } catch (err) {
      throw new PrometheusQueryError(this.o.url, query, (err as Error).message, { cause: err });
    }
    const json = (await res.json().catch(() => undefined)) as
      | { status?: string; error?: string; errorType?: string }
      | undefined;
    if (!res.ok || json?.status !== 'success') {
      const reason = json?.error ? `${json.errorType ?? 'error'}: ${json.error}` : `HTTP ${res.status}`;
      throw new PrometheusQueryError(this.o.url, query, reason);
    }
    return singleSeries(parseRangeResponse(json));
  }
}
