import { RangeResponseError } from './errors.js';
import type { Sample } from './sample.js';

/** One series of a range-query answer. */
export interface RangeSeries {
  metric: Record<string, string>;
  samples: Sample[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads a Prometheus `query_range` answer (`{"status":"success","data":{"resultType":"matrix","result":[...]}}`),
 * the format `what-if ehpa --history` takes and the Prometheus source receives. Values are strings in Prometheus
 * ("NaN", "+Inf" included); a sample that is not a finite number is an error naming its path, not a silent gap.
 */
export function parseRangeResponse(body: unknown): RangeSeries[] {
  if (!isObject(body)) throw new RangeResponseError('(root)', 'expected an object');
  if (body.status !== 'success')
    throw new RangeResponseError('status', `expected "success", got ${JSON.stringify(body.status)}`);
  if (!isObject(body.data)) throw new RangeResponseError('data', 'expected an object');
  if (body.data.resultType !== 'matrix')
    throw new RangeResponseError('data.resultType', `expected "matrix", got ${JSON.stringify(body.data.resultType)}`);
  const result = body.data.result;
  if (!Array.isArray(result)) throw new RangeResponseError('data.result', 'expected an array');
  return result.map((series, i) => {
    const at = `data.result[${i}]`;
    if (!isObject(series)) throw new RangeResponseError(at, 'expected an object');
    const metric = series.metric ?? {};
    if (!isObject(metric)) throw new RangeResponseError(`${at}.metric`, 'expected an object of labels');
    if (!Array.isArray(series.values))
      throw new RangeResponseError(`${at}.values`, 'expected an array of [unixSeconds, "value"]');
    const samples = series.values.map((v, j): Sample => {
      const vat = `${at}.values[${j}]`;
      if (!Array.isArray(v) || v.length !== 2) throw new RangeResponseError(vat, 'expected [unixSeconds, "value"]');
      const [ts, raw] = v as [unknown, unknown];
      if (typeof ts !== 'number' || !Number.isFinite(ts))
        throw new RangeResponseError(`${vat}[0]`, `expected a unix time in seconds, got ${JSON.stringify(ts)}`);
      const value = typeof raw === 'string' ? Number(raw) : typeof raw === 'number' ? raw : Number.NaN;
      if (!Number.isFinite(value))
        throw new RangeResponseError(`${vat}[1]`, `expected a finite number, got ${JSON.stringify(raw)}`);
      return [ts, value];
    });
    for (let j = 1; j < samples.length; j++) {
      if (samples[j]![0] <= samples[j - 1]![0])
        throw new RangeResponseError(`${at}.values[${j}][0]`, 'timestamps must increase');
    }
    return { metric: Object.fromEntries(Object.entries(metric).map(([k, val]) => [k, String(val)])), samples };
  });
}

/**
 * The one series a workload query yields. Crane predicts each returned series on its own; a workload's usage query
 * sums over pods, so more than one series means the query is not the workload total and is refused.
 */
export function singleSeries(series: RangeSeries[]): Sample[] {
  if (series.length === 0) return [];
  if (series.length > 1) {
    throw new RangeResponseError(
      'data.result',
      `expected one series (the workload's total), got ${series.length}: aggregate the query with sum()`,
    );
  }
  return series[0]!.samples;
}
