import { describe, expect, it } from 'vitest';
import { AssumedUsage } from './assumed-usage.js';
import { estimateFreeReplicas } from './estimate.js';
import { parseResourceRequest } from './request.js';
import type { Cluster } from './types.js';

const request = parseResourceRequest({ cpu: '500m' });
const none = new Map<string, number>();

describe('AssumedUsage', () => {
  it('counts assigned replicas not yet reported, per cluster, with their requests and one pod each', () => {
    const a = new AssumedUsage();
    a.set(
      'rb/a',
      [
        { name: 'm1', replicas: 3 },
        { name: 'm2', replicas: 2 },
      ],
      none,
      request,
    );
    a.set('rb/b', [{ name: 'm1', replicas: 1 }], none, request);
    expect(Object.fromEntries(a.usageOf('m1'))).toEqual({ pods: 4, cpu: 2000 });
    expect(Object.fromEntries(a.usageOf('m2'))).toEqual({ pods: 2, cpu: 1000 });
  });

  it('releases what the member has reported, and never goes below nothing', () => {
    const a = new AssumedUsage();
    a.set('rb/a', [{ name: 'm1', replicas: 3 }], none, request);
    a.set('rb/a', [{ name: 'm1', replicas: 3 }], new Map([['m1', 2]]), request);
    expect(a.assumedPods('rb/a', 'm1')).toBe(1);
    a.set('rb/a', [{ name: 'm1', replicas: 3 }], new Map([['m1', 5]]), request);
    expect(a.usageOf('m1').size).toBe(0);
  });

  it('drops a contribution when the assignment moves or the binding goes', () => {
    const a = new AssumedUsage();
    a.set('rb/a', [{ name: 'm1', replicas: 3 }], none, request);
    a.set('rb/a', [{ name: 'm2', replicas: 3 }], none, request);
    expect(a.usageOf('m1').size).toBe(0);
    expect(a.assumedPods('rb/a', 'm2')).toBe(3);
    a.delete('rb/a');
    expect(a.usageOf('m2').size).toBe(0);
  });

  it('keeps the same live map per cluster, so views holding it see later changes', () => {
    const a = new AssumedUsage();
    const live = a.usageOf('m1');
    a.set('rb/a', [{ name: 'm1', replicas: 2 }], none, undefined);
    expect(live.get('pods')).toBe(2);
  });

  it('makes the estimator count assumed replicas as used', () => {
    const a = new AssumedUsage();
    const cluster: Cluster = {
      metadata: { name: 'm1' },
      status: { resourceSummary: { allocatable: { pods: 10, cpu: '4' } } },
    };
    const view = { ...cluster, assumedUsage: a.usageOf('m1') };
    expect(estimateFreeReplicas(view, request, 10)).toBe(8);
    a.set('rb/a', [{ name: 'm1', replicas: 6 }], none, request);
    expect(estimateFreeReplicas(view, request, 10)).toBe(2);
    a.set('rb/b', [{ name: 'm1', replicas: 4 }], none, undefined);
    // 10 pods − 6 − 4 assumed: the pod budget is gone although cpu is not.
    expect(estimateFreeReplicas(view, request, 10)).toBe(0);
  });
});
