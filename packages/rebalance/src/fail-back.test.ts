import { describe, expect, it } from 'vitest';
import type { Cluster, ResourceBinding } from '@flotilla/scheduling';
import { decideFailBack, FAIL_BACK_ANNOTATION, parseFailBackPeriod, type FailBackInput } from './fail-back.js';

// Karmada's multiple-scheduling-groups example: dc-beijing first, dc-hongkong as the backup.
const t0 = Date.parse('2026-01-01T00:00:00Z');
const at = (minutes: number) => new Date(t0 + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString().replace('.000Z', 'Z');
const cluster = (name: string, ready: boolean): Cluster => ({
  metadata: { name },
  ...(ready
    ? {}
    : {
        spec: {
          taints: [{ key: 'cluster.karmada.io/not-ready', effect: 'NoExecute', timeAdded: '2025-12-31T23:00:00Z' }],
        },
      }),
  status: {
    conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
    resourceSummary: { allocatable: { cpu: '8', memory: '32Gi', pods: '110' } },
  },
});
const binding = (observing: string, o: { triggeredAt?: string; lastScheduled?: string } = {}): ResourceBinding => ({
  kind: 'ResourceBinding',
  metadata: { name: 'nginx-deployment', namespace: 'default', generation: 3 },
  spec: {
    resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'nginx', uid: 't-1' },
    replicas: 2,
    clusters: [{ name: observing === 'dc-beijing' ? 'member1' : 'member2', replicas: 2 }],
    placement: {
      clusterAffinities: [
        { affinityName: 'dc-beijing', clusterNames: ['member1'] },
        { affinityName: 'dc-hongkong', clusterNames: ['member2'] },
      ],
      replicaScheduling: { replicaSchedulingType: 'Duplicated' },
    },
    ...(o.triggeredAt ? { rescheduleTriggeredAt: o.triggeredAt } : {}),
  },
  status: { schedulerObservingAffinityName: observing, lastScheduledTime: o.lastScheduled ?? iso(-30) },
});
const optIn = { [FAIL_BACK_ANNOTATION]: '10m' };
const input = (over: Partial<FailBackInput>): FailBackInput => ({
  binding: binding('dc-hongkong'),
  policyAnnotations: optIn,
  clusters: [cluster('member1', true), cluster('member2', true)],
  now: at(0),
  ...over,
});

describe('parseFailBackPeriod', () => {
  it.each<[string | undefined, number | undefined]>([
    ['10m', 600_000],
    ['1h30m', 5_400_000],
    ['90s', 90_000],
    ['0s', undefined],
    ['ten minutes', undefined],
    ['10', undefined],
    [undefined, undefined],
  ])('%s', (text, ms) => expect(parseFailBackPeriod(text)).toBe(ms));
});

describe('decideFailBack', () => {
  it.each<[string, Partial<FailBackInput>, string]>([
    ['off without the annotation (Karmada never fails back by itself)', { policyAnnotations: {} }, 'NotEnabled'],
    [
      'an unreadable period is not a fail-back',
      { policyAnnotations: { [FAIL_BACK_ANNOTATION]: 'soon' } },
      'InvalidPeriod',
    ],
    ['already in the first group', { binding: binding('dc-beijing') }, 'InFirstGroup'],
    [
      'the first group still cannot hold it (member1 down)',
      { clusters: [cluster('member1', false), cluster('member2', true)] },
      'NoEarlierGroupFits',
    ],
    [
      'a Fresh rescheduling is already pending',
      { binding: binding('dc-hongkong', { triggeredAt: iso(-1), lastScheduled: iso(-2) }) },
      'ReschedulePending',
    ],
  ])('no fail-back: %s', (_t, over, reason) => {
    expect(decideFailBack(input(over))).toEqual({ action: 'none', reason });
  });

  it('starts the clock when the first group can hold it again, waits the period, then triggers a Fresh rescheduling', () => {
    const first = decideFailBack(input({ now: at(0) }));
    expect(first).toEqual({
      action: 'wait',
      holdingSince: at(0).toISOString(),
      toGroup: 'dc-beijing',
      recheckAfterMs: 600_000,
    });
    const midway = decideFailBack(input({ now: at(4), holdingSince: iso(0) }));
    expect(midway).toMatchObject({ action: 'wait', recheckAfterMs: 360_000 });
    expect(decideFailBack(input({ now: at(10), holdingSince: iso(0) }))).toEqual({
      action: 'trigger',
      rescheduleTriggeredAt: iso(10),
      fromGroup: 'dc-hongkong',
      toGroup: 'dc-beijing',
      holdingSince: iso(0),
    });
  });

  it('hysteresis: never twice within the period of the last trigger', () => {
    const b = binding('dc-hongkong', { triggeredAt: iso(5), lastScheduled: iso(6) });
    expect(decideFailBack(input({ binding: b, now: at(12), holdingSince: iso(0) }))).toMatchObject({
      action: 'wait',
      recheckAfterMs: 3 * 60_000,
    });
    expect(decideFailBack(input({ binding: b, now: at(15), holdingSince: iso(0) }))).toMatchObject({
      action: 'trigger',
      rescheduleTriggeredAt: iso(15),
    });
  });
});
