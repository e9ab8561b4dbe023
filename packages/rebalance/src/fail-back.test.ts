import { describe, expect, it } from 'vitest';
import type { Cluster, ResourceBinding } from '@flotilla/scheduling';
import {
  decideFailBack,
  FAIL_BACK_ANNOTATION,
  failBackSettings,
  parseFailBackPeriod,
  type FailBackInput,
  type FailBackPolicy,
} from './fail-back.js';

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
const binding = (
  observing: string,
  o: { triggeredAt?: string; lastScheduled?: string; hold?: { holdingSince: string; toGroup?: string } } = {},
): ResourceBinding => ({
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
  status: {
    schedulerObservingAffinityName: observing,
    lastScheduledTime: o.lastScheduled ?? iso(-30),
    ...(o.hold
      ? {
          failBack: {
            fromGroup: observing,
            toGroup: o.hold.toGroup ?? 'dc-beijing',
            holdingSince: o.hold.holdingSince,
          },
        }
      : {}),
  },
});
const optIn: FailBackPolicy = { annotations: { [FAIL_BACK_ANNOTATION]: '10m' } };
const input = (over: Partial<FailBackInput>): FailBackInput => ({
  binding: binding('dc-hongkong'),
  policy: optIn,
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

describe('failBackSettings', () => {
  const spec = (failback: FailBackPolicy['failback'], annotations?: Record<string, string>): FailBackPolicy => ({
    failback,
    ...(annotations ? { annotations } : {}),
  });
  it.each<[string, FailBackPolicy | undefined, ReturnType<typeof failBackSettings>]>([
    ['no policy', undefined, { enabled: false, reason: 'NotEnabled' }],
    ['the annotation', optIn, { enabled: true, periodMs: 600_000, period: '10m' }],
    [
      'an unreadable annotation',
      { annotations: { [FAIL_BACK_ANNOTATION]: 'soon' } },
      { enabled: false, reason: 'InvalidPeriod' },
    ],
    [
      "karmada#7441's field",
      spec({ enabled: true, stabilizationWindow: '5m', maxConcurrent: 2, mode: 'Graciously' }),
      { enabled: true, periodMs: 300_000, period: '5m', maxConcurrent: 2 },
    ],
    [
      'the field wins over the annotation',
      spec({ enabled: true, stabilizationWindow: '90s' }, { [FAIL_BACK_ANNOTATION]: '10m' }),
      { enabled: true, periodMs: 90_000, period: '90s' },
    ],
    [
      'the field disabled turns the annotation off',
      spec({ enabled: false, stabilizationWindow: '90s' }, { [FAIL_BACK_ANNOTATION]: '10m' }),
      { enabled: false, reason: 'NotEnabled' },
    ],
    [
      'the field without enabled is off',
      spec({ stabilizationWindow: '90s' }),
      { enabled: false, reason: 'NotEnabled' },
    ],
  ])('%s', (_t, policy, settings) => expect(failBackSettings(policy)).toEqual(settings));
});

describe('decideFailBack', () => {
  it.each<[string, Partial<FailBackInput>, string, boolean]>([
    [
      'off without the annotation (Karmada never fails back by itself)',
      { policy: { annotations: {} } },
      'NotEnabled',
      false,
    ],
    [
      'an unreadable period is not a fail-back',
      { policy: { annotations: { [FAIL_BACK_ANNOTATION]: 'soon' } } },
      'InvalidPeriod',
      false,
    ],
    ['already in the first group', { binding: binding('dc-beijing') }, 'InFirstGroup', false],
    [
      'the first group still cannot hold it (member1 down)',
      { clusters: [cluster('member1', false), cluster('member2', true)] },
      'NoEarlierGroupFits',
      false,
    ],
    [
      'the hold broke (member1 down again): its record is cleared',
      {
        binding: binding('dc-hongkong', { hold: { holdingSince: iso(-3) } }),
        clusters: [cluster('member1', false), cluster('member2', true)],
      },
      'NoEarlierGroupFits',
      true,
    ],
    [
      'a Fresh rescheduling is already pending',
      { binding: binding('dc-hongkong', { triggeredAt: iso(-1), lastScheduled: iso(-2) }) },
      'ReschedulePending',
      false,
    ],
  ])('no fail-back: %s', (_t, over, reason, clearHold) => {
    expect(decideFailBack(input(over))).toEqual({ action: 'none', reason, clearHold });
  });

  const hold = (since: string) => ({ holdingSince: since, fromGroup: 'dc-hongkong', toGroup: 'dc-beijing' });

  it('starts the clock when the first group can hold it again (to be recorded once), waits the period, then triggers a Fresh rescheduling', () => {
    const first = decideFailBack(input({ now: at(0) }));
    expect(first).toEqual({
      action: 'wait',
      hold: hold(at(0).toISOString()),
      recordHold: true,
      readyAt: at(10).toISOString(),
      recheckAfterMs: 600_000,
    });
    const recorded = binding('dc-hongkong', { hold: { holdingSince: at(0).toISOString() } });
    const midway = decideFailBack(input({ binding: recorded, now: at(4) }));
    expect(midway).toMatchObject({ action: 'wait', recordHold: false, recheckAfterMs: 360_000 });
    expect(decideFailBack(input({ binding: recorded, now: at(10) }))).toEqual({
      action: 'trigger',
      hold: hold(at(0).toISOString()),
      recordHold: false,
      readyAt: at(10).toISOString(),
      rescheduleTriggeredAt: iso(10),
    });
  });

  it("the clock is the status's record, not the leader's memory: a new leader (no memory) keeps the hold's start", () => {
    const recorded = binding('dc-hongkong', { hold: { holdingSince: iso(-7) } });
    expect(decideFailBack(input({ binding: recorded, now: at(0) }))).toMatchObject({
      action: 'wait',
      hold: hold(iso(-7)),
      recordHold: false,
      recheckAfterMs: 3 * 60_000,
    });
  });

  it('a recorded hold towards another group is not this one: the clock starts again', () => {
    const other = binding('dc-hongkong', { hold: { holdingSince: iso(-7), toGroup: 'dc-shanghai' } });
    expect(decideFailBack(input({ binding: other, now: at(0) }))).toMatchObject({
      action: 'wait',
      hold: hold(at(0).toISOString()),
      recordHold: true,
    });
  });

  it("karmada#7441's stabilizationWindow is the period", () => {
    const policy: FailBackPolicy = { failback: { enabled: true, stabilizationWindow: '2m' } };
    expect(decideFailBack(input({ policy, now: at(0) }))).toMatchObject({ action: 'wait', recheckAfterMs: 120_000 });
  });

  it('hysteresis: never twice within the period of the last trigger', () => {
    const b = binding('dc-hongkong', { triggeredAt: iso(5), lastScheduled: iso(6), hold: { holdingSince: iso(0) } });
    expect(decideFailBack(input({ binding: b, now: at(12) }))).toMatchObject({
      action: 'wait',
      recheckAfterMs: 3 * 60_000,
    });
    expect(decideFailBack(input({ binding: b, now: at(15) }))).toMatchObject({
      action: 'trigger',
      rescheduleTriggeredAt: iso(15),
    });
  });
});
