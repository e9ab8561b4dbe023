import { describe, expect, it } from 'vitest';
import { cloudEvent } from '@flotilla/bus';
import { eventMessage } from './event-message.js';

const event = (type: string, kind: string, name: string, data: unknown) =>
  cloudEvent({ source: 'test', type, kind, namespace: '', name, time: new Date('2026-01-01T00:00:00Z'), data });

describe('eventMessage', () => {
  it.each([
    [
      'a Kubernetes-style event says its message',
      event('BindingScheduled', 'ResourceBinding', 'web', {
        kubeEvent: { type: 'Normal', reason: 'ScheduleBindingSucceed', message: 'placed on member1' },
      }),
      'placed on member1',
    ],
    [
      'a cluster status report says Ready, capacity and version',
      event('ClusterStatusReported', 'Cluster', 'member1', {
        statusPatch: {
          conditions: [{ type: 'Ready', status: 'True', reason: 'ClusterReady' }],
          resourceSummary: { allocatable: { cpu: '8', memory: '32Gi', pods: '110' }, allocated: { cpu: '500m' } },
          kubernetesVersion: 'v1.31.0',
        },
      }),
      'Ready=True (ClusterReady), allocatable cpu=8 memory=32Gi pods=110, allocated cpu=500m, Kubernetes v1.31.0',
    ],
    [
      'a workload status report says where it was applied and how healthy it is',
      event('WorkloadStatusReported', 'ResourceBinding', 'web', {
        clusterName: 'member1',
        applied: true,
        health: 'Healthy',
      }),
      'applied on member1, Healthy',
    ],
    [
      'a workload removed from a cluster says so',
      event('WorkloadStatusReported', 'ResourceBinding', 'web', {
        clusterName: 'member2',
        applied: false,
        removed: true,
      }),
      'removed from member2',
    ],
    [
      'a cron execution says the rule and the values it applied',
      event('CronRuleExecuted', 'CronFederatedHPA', 'nightly', {
        ruleName: 'scale-up',
        scheduleTime: '2026-01-01T00:00:00Z',
        appliedMinReplicas: 2,
        appliedMaxReplicas: 10,
        successfulHistoryLimit: 3,
      }),
      'rule scale-up executed: minReplicas=2, maxReplicas=10',
    ],
    [
      'the next cron times say each rule',
      event('CronNextScheduled', 'CronFederatedHPA', 'nightly', {
        rules: [{ ruleName: 'scale-up', nextExecutionTime: '2026-01-02T00:00:00Z' }],
      }),
      'next: rule scale-up at 2026-01-02T00:00:00Z',
    ],
    ['a deletion says what was deleted', event('ObjectDeleted', 'Cluster', 'member3', {}), 'Cluster member3 deleted'],
    [
      'any other event says its fields and the status it set',
      event('RebalanceObserved', 'WorkloadRebalancer', 'demo', {
        observedGeneration: 2,
        added: [],
        statusPatch: { observedWorkloads: [] },
      }),
      'observedGeneration=2, status observedWorkloads updated',
    ],
    ['an event without data still says its type', event('Mystery', 'Cluster', 'x', undefined), 'Mystery'],
  ])('%s', (_name, e, expected) => {
    expect(eventMessage(e)).toBe(expected);
  });
});
