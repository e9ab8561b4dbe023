import { describe, expect, it } from 'vitest';
import { cloudEvent } from '@flotilla/bus';
import { defaultReducers } from './default-reducers.js';

describe('default reducers: WorkloadRebalancer', () => {
  it("folds the rebalancer's events into Karmada's status shape", () => {
    const r = defaultReducers();
    const ev = (type: string, data: unknown, s: number) =>
      cloudEvent({
        source: 'rebalancer',
        type,
        kind: 'WorkloadRebalancer',
        name: 'demo',
        time: new Date(Date.UTC(2026, 0, 1, 0, 0, s)),
        data,
      });
    const w = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' };
    const binding = { kind: 'ResourceBinding', namespace: 'shop', name: 'web-deployment' };
    let s = r.fold(undefined, ev('RebalanceObserved', { observedGeneration: 1, added: [w], dropped: [] }, 1));
    expect(s).toEqual({ observedWorkloads: [{ workload: w }], observedGeneration: 1 });
    s = r.fold(
      s,
      ev(
        'RebalanceTriggered',
        { workloads: [{ workload: w, binding, rescheduleTriggeredAt: '2026-01-01T00:00:00Z', written: true }] },
        2,
      ),
    );
    s = r.fold(s, ev('RebalanceFinished', { finishTime: '2026-01-01T00:00:02Z', successful: 1, failed: 0 }, 2));
    expect(s).toEqual({
      observedWorkloads: [{ workload: w, result: 'Successful' }],
      observedGeneration: 1,
      finishTime: '2026-01-01T00:00:02Z',
    });
  });
});
