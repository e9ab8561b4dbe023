import { describe, expect, it } from 'vitest';
import type { Cluster, ResourceBinding } from '@flotilla/scheduling';
import { failBackQueue } from './fail-back-queue.js';

const t0 = Date.parse('2026-01-01T00:00:00Z');
const at = (s: number) => new Date(t0 + s * 1000).toISOString();
const ready = (name: string): Cluster => ({
  metadata: { name },
  status: {
    conditions: [{ type: 'Ready', status: 'True' }],
    resourceSummary: { allocatable: { cpu: '8', memory: '32Gi', pods: '110' } },
  },
});
const placement = {
  clusterAffinities: [
    { affinityName: 'primary', clusterNames: ['member1'] },
    { affinityName: 'backup', clusterNames: ['member2'] },
  ],
  replicaScheduling: { replicaSchedulingType: 'Duplicated' as const },
};
const binding = (name: string, status: Record<string, unknown>): ResourceBinding => ({
  kind: 'ResourceBinding',
  metadata: { name, namespace: 'default', annotations: { policy: 'p' } },
  spec: {
    resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name },
    replicas: 1,
    clusters: [{ name: 'member2', replicas: 1 }],
    placement,
  },
  status: { schedulerObservingAffinityName: 'backup', lastScheduledTime: at(-600), ...status },
});
const hold = (since: number) => ({ failBack: { holdingSince: at(since), fromGroup: 'backup', toGroup: 'primary' } });

describe('failBackQueue: what `flotilla get failbacks` shows', () => {
  it('the recorded holds, in turn order under the budget, with when each moves; one failed back lately holds a slot', () => {
    const q = failBackQueue({
      bindings: [
        binding('young', hold(-100)),
        binding('old', hold(-300)),
        binding('windowing', hold(-30)),
        binding('done', { lastFailBackTime: at(-20), lastScheduledTime: at(-19) }),
        binding('not-waiting', {}),
      ],
      policyOf: (b) =>
        b.metadata.annotations?.policy
          ? { key: 'pp/p', policy: { failback: { enabled: true, stabilizationWindow: '1m' } } }
          : undefined,
      clusters: [ready('member1'), ready('member2')],
      budget: { max: 2, periodMs: 60_000 },
      now: new Date(t0),
    });
    expect(q.map((x) => [x.binding.metadata.name, x.toGroup, x.holdingSince, x.moveAt, x.turn, x.waitingFor])).toEqual([
      ['old', 'primary', at(-300), at(0), 1, 'None'],
      ['young', 'primary', at(-100), at(40), 2, 'Budget'],
      ['windowing', 'primary', at(-30), at(60), 3, 'Budget'],
    ]);
  });
});
