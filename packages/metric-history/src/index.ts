/**
 * @flotilla/metric-history: usage history for prediction, from Prometheus (query_range) or the embedded metrics
 * stream. Its public surface, named here; the modules' other exports are internal.
 */
export type { HistoryRange, MetricHistorySource, Sample, WorkloadRef } from './sample.js';
export { PrometheusQueryError, QueryTemplateError, RangeResponseError } from './errors.js';
export { parseRangeResponse, type RangeSeries } from './range-response.js';
export { CRANE_WORKLOAD_CPU_QUERY, renderQuery, SIM_WORKLOAD_CPU_QUERY } from './query-template.js';
export { PrometheusSource, type PrometheusSourceOptions } from './prometheus-source.js';
export { JetStreamHistory, RECORD_ALL_IN_FLIGHT, type RecordOptions } from './jetstream-history.js';
// The stream is provisioned with the others (packages/bus); re-exported where its readers and writers look for it.
export { DEFAULT_METRICS_MAX_AGE_MS, ensureMetricsStream } from '@flotilla/bus';
