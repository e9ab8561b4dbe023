import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { ClusterMetrics, clusterSamples, type ClusterSamples, type ReportedStatus } from './cluster-metrics.js';

type Status = ReportedStatus | undefined;

describe('clusterSamples (a Karmada Cluster status as numbers)', () => {
  const ready = (status: 'True' | 'False') => ({ conditions: [{ type: 'Ready', status, reason: 'r', message: 'm' }] });
  const cases: Array<[string, Status, ClusterSamples]> = [
    ['no status yet', undefined, { ready: 0, allocatable: {}, allocated: {} }],
    ['Ready True', ready('True'), { ready: 1, allocatable: {}, allocated: {} }],
    ['Ready False', ready('False'), { ready: 0, allocatable: {}, allocated: {} }],
    ['no Ready condition', { conditions: [] }, { ready: 0, allocatable: {}, allocated: {} }],
    [
      'quantities in base units, an unparsable one left out',
      {
        ...ready('True'),
        resourceSummary: {
          allocatable: { cpu: '8', memory: '16Gi', pods: '110', bad: 'lots' },
          allocated: { cpu: '1500m' },
        },
      },
      { ready: 1, allocatable: { cpu: 8, memory: 16 * 2 ** 30, pods: 110 }, allocated: { cpu: 1.5 } },
    ],
  ];
  it.each(cases)('%s', (_name, status, expected) => {
    expect(clusterSamples(status)).toEqual(expected);
  });
});

describe('ClusterMetrics', () => {
  it('reads the reporting driver at scrape time and reports nothing once it stopped', async () => {
    const registry = new Registry();
    const metrics = ClusterMetrics.of(registry);
    const statuses = new Map<string, Status>([
      ['member1', { conditions: [{ type: 'Ready', status: 'True' }], resourceSummary: { allocatable: { cpu: '4' } } }],
    ]);
    metrics.report(() => statuses.entries());
    let text = await registry.metrics();
    expect(text).toContain('flotilla_cluster_ready{cluster="member1"} 1');
    expect(text).toContain('flotilla_cluster_allocatable{cluster="member1",resource="cpu"} 4');
    statuses.set('member1', {
      conditions: [{ type: 'Ready', status: 'False' }],
      resourceSummary: { allocatable: { cpu: '4' } },
    });
    expect(await registry.metrics()).toContain('flotilla_cluster_ready{cluster="member1"} 0');
    metrics.forget();
    text = await registry.metrics();
    expect(text).not.toContain('cluster="member1"');
  });
});
