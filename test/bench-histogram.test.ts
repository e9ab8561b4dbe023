import { describe, expect, it } from 'vitest';
import { bucketsSince, histogramBuckets, histogramQuantile, shareAtMost } from '../bench/support.js';

const page = `
# HELP flotilla_api_request_duration_seconds Time the gateway took to answer an API request
# TYPE flotilla_api_request_duration_seconds histogram
flotilla_api_request_duration_seconds_bucket{le="0.001",operation="validate"} 10
flotilla_api_request_duration_seconds_bucket{le="0.005",operation="validate"} 90
flotilla_api_request_duration_seconds_bucket{le="0.01",operation="validate"} 99
flotilla_api_request_duration_seconds_bucket{le="+Inf",operation="validate"} 100
flotilla_api_request_duration_seconds_sum{operation="validate"} 0.4
flotilla_api_request_duration_seconds_count{operation="validate"} 100
flotilla_api_request_duration_seconds_bucket{le="0.001",operation="apply"} 7
flotilla_api_request_duration_seconds_bucket{le="0.005",operation="apply"} 7
flotilla_api_request_duration_seconds_bucket{le="0.01",operation="apply"} 7
flotilla_api_request_duration_seconds_bucket{le="+Inf",operation="apply"} 7
apiserver_admission_webhook_admission_duration_seconds_bucket{name="v.flotilla.io",operation="CREATE",rejected="false",type="validating",le="0.005"} 3
apiserver_admission_webhook_admission_duration_seconds_bucket{name="v.flotilla.io",operation="CREATE",rejected="false",type="validating",le="0.025"} 5
apiserver_admission_webhook_admission_duration_seconds_bucket{name="v.flotilla.io",operation="CREATE",rejected="false",type="validating",le="+Inf"} 5
apiserver_admission_webhook_admission_duration_seconds_bucket{name="v.flotilla.io",operation="UPDATE",rejected="false",type="validating",le="0.005"} 1
apiserver_admission_webhook_admission_duration_seconds_bucket{name="v.flotilla.io",operation="UPDATE",rejected="false",type="validating",le="0.025"} 1
apiserver_admission_webhook_admission_duration_seconds_bucket{name="v.flotilla.io",operation="UPDATE",rejected="false",type="validating",le="+Inf"} 2
`;

describe('bench histograms', () => {
  it("reads one series' buckets, or sums the series that match the labels", () => {
    expect(histogramBuckets(page, 'flotilla_api_request_duration_seconds', { operation: 'validate' })).toEqual([
      [0.001, 10],
      [0.005, 90],
      [0.01, 99],
      [Number.POSITIVE_INFINITY, 100],
    ]);
    expect(histogramBuckets(page, 'apiserver_admission_webhook_admission_duration_seconds')).toEqual([
      [0.005, 4],
      [0.025, 6],
      [Number.POSITIVE_INFINITY, 7],
    ]);
    expect(histogramBuckets(page, 'flotilla_api_request_duration_seconds', { operation: 'get' })).toEqual([]);
  });

  it.each<[q: number, expected: number]>([
    [0.05, 0.0005], // inside the first bucket, which starts at 0
    [0.5, 0.001 + 0.004 * (40 / 80)],
    [0.99, 0.01], // the rank is exactly the 0.01 bucket's count
    [0.995, 0.01], // in +Inf: the highest finite bound
  ])('the %s-quantile is %s, as histogram_quantile computes it', (q, expected) => {
    const b = histogramBuckets(page, 'flotilla_api_request_duration_seconds', { operation: 'validate' });
    expect(histogramQuantile(b, q)).toBeCloseTo(expected, 9);
  });

  it('takes what was observed between two readings, and the share at most a bound', () => {
    const after = histogramBuckets(page, 'flotilla_api_request_duration_seconds', { operation: 'validate' });
    const since = bucketsSince(after, [
      [0.001, 10],
      [0.005, 40],
      [0.01, 40],
      [Number.POSITIVE_INFINITY, 40],
    ]);
    expect(since).toEqual([
      [0.001, 0],
      [0.005, 50],
      [0.01, 59],
      [Number.POSITIVE_INFINITY, 60],
    ]);
    expect(shareAtMost(since, 0.01)).toBeCloseTo(59 / 60, 12);
    expect(bucketsSince(after, [])).toEqual(after);
    expect(histogramQuantile([], 0.99)).toBeNaN();
    expect(() => shareAtMost(since, 0.02)).toThrow(/no bucket with le=0.02/);
  });
});
