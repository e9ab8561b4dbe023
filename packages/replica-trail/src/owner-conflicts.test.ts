import { describe, expect, it } from 'vitest';
import {
  mergeConditions,
  type Condition,
  type ForeignHorizontalPodAutoscaler,
  type PatchCondition,
} from '@flotilla/api';
import type { AutoscalerLike } from './refs.js';
import {
  appliedReplicasRetainedCondition,
  decideOwnerConflict,
  ONE_TIME_CONFLICT_HOLD_MS,
  oneTimeConflictHoldEnd,
  scaledWorkload,
} from './owner-conflicts.js';

const at = (kind: string, name: string, target: { kind: string; name: string }): AutoscalerLike => ({
  kind,
  metadata: { name, namespace: 'default' },
  spec: { scaleTargetRef: target },
});
const fhpa = at('FederatedHPA', 'web', { kind: 'Deployment', name: 'web' });
const ehpa = at('EffectiveHorizontalPodAutoscaler', 'web', { kind: 'Deployment', name: 'web' });
const cronOnFhpa = at('CronFederatedHPA', 'web-cron', { kind: 'FederatedHPA', name: 'web' });
const hpa = (name: string, target: string, namespace = 'default'): ForeignHorizontalPodAutoscaler => ({
  namespace,
  name,
  scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target },
  minReplicas: 1,
  maxReplicas: 10,
});
const now = new Date('2026-05-04T08:00:00Z');
const conflictTrue = (message: string): Condition => ({
  type: 'ReplicaOwnerConflict',
  status: 'True',
  reason: 'ForeignMemberHPA',
  message,
  lastTransitionTime: '2026-05-04T07:00:00Z',
});
const ONE =
  'HorizontalPodAutoscaler member1/default/web-hpa (not created by Flotilla) also scales Deployment default/web in its member cluster, which FederatedHPA default/web scales: two writers of its replicas; remove the member HPA or the autoscaler';

type Case = [
  title: string,
  autoscaler: AutoscalerLike,
  foreign: Record<string, ForeignHorizontalPodAutoscaler[]>,
  current: Condition | undefined,
  expected: { status?: string; reason?: string; conflicts: string[]; events: string[] },
];

describe('decideOwnerConflict: a member HPA Flotilla did not create, on a workload it autoscales', () => {
  it.each<Case>([
    [
      'a foreign HPA on the FederatedHPA workload: True, a Warning on both naming both',
      fhpa,
      { member1: [hpa('web-hpa', 'web')], member2: [hpa('other', 'api')] },
      undefined,
      {
        status: 'True',
        reason: 'ForeignMemberHPA',
        conflicts: ['member1/default/web-hpa'],
        events: ['Warning FederatedHPA/web', 'Warning Deployment/web'],
      },
    ],
    [
      'the same conflict already recorded: nothing new',
      fhpa,
      { member1: [hpa('web-hpa', 'web')] },
      conflictTrue(ONE),
      { conflicts: ['member1/default/web-hpa'], events: [] },
    ],
    [
      'a second foreign HPA in another cluster: the condition names both',
      ehpa,
      { member2: [hpa('b', 'web')], member1: [hpa('a', 'web')] },
      conflictTrue(ONE),
      {
        status: 'True',
        reason: 'ForeignMemberHPA',
        conflicts: ['member1/default/a', 'member2/default/b'],
        events: ['Warning EffectiveHorizontalPodAutoscaler/web', 'Warning Deployment/web'],
      },
    ],
    [
      'a CronFederatedHPA aimed at the FederatedHPA answers for its workload',
      cronOnFhpa,
      { member1: [hpa('web-hpa', 'web')] },
      undefined,
      {
        status: 'True',
        reason: 'ForeignMemberHPA',
        conflicts: ['member1/default/web-hpa'],
        events: ['Warning CronFederatedHPA/web-cron', 'Warning Deployment/web'],
      },
    ],
    [
      'an HPA in another namespace or on another workload is no conflict',
      fhpa,
      { member1: [hpa('x', 'web', 'shop'), hpa('y', 'api')] },
      undefined,
      { conflicts: [], events: [] },
    ],
    [
      'the foreign HPA went away: False (NoConflict), a Normal event on the autoscaler',
      fhpa,
      {},
      conflictTrue(ONE),
      { status: 'False', reason: 'NoConflict', conflicts: [], events: ['Normal FederatedHPA/web'] },
    ],
    ['no conflict and no condition: nothing is written', fhpa, {}, undefined, { conflicts: [], events: [] }],
    [
      "an apply's kept count shows for the hold, then clears",
      fhpa,
      {},
      {
        type: 'ReplicaOwnerConflict',
        status: 'True',
        reason: 'AppliedReplicasRetained',
        message: 'an apply',
        lastTransitionTime: new Date(now.getTime() - ONE_TIME_CONFLICT_HOLD_MS + 1000).toISOString(),
      },
      { conflicts: [], events: [] },
    ],
    [
      "an apply's kept count, older than the hold: cleared",
      fhpa,
      {},
      {
        type: 'ReplicaOwnerConflict',
        status: 'True',
        reason: 'AppliedReplicasRetained',
        message: 'an apply',
        lastTransitionTime: new Date(now.getTime() - ONE_TIME_CONFLICT_HOLD_MS).toISOString(),
      },
      { status: 'False', reason: 'NoConflict', conflicts: [], events: ['Normal FederatedHPA/web'] },
    ],
  ])('%s', (_title, autoscaler, foreign, current, expected) => {
    const d = decideOwnerConflict({
      autoscaler,
      federatedHpas: [fhpa],
      foreignByCluster: new Map(Object.entries(foreign)),
      current,
      now,
    });
    expect({
      ...(d.condition ? { status: d.condition.status, reason: d.condition.reason } : {}),
      conflicts: d.conflicts,
      events: d.events.map((e) => `${e.type} ${e.on.kind}/${e.on.name}`),
    }).toEqual(expected);
    for (const e of d.events.filter((x) => x.type === 'Warning')) {
      expect(e.message).toContain(`${autoscaler.kind} default/${autoscaler.metadata.name}`);
      for (const c of d.conflicts) expect(e.message).toContain(`HorizontalPodAutoscaler ${c}`);
    }
  });

  it('the first conflict message names the member HPA, the workload and the autoscaler', () => {
    const d = decideOwnerConflict({
      autoscaler: fhpa,
      federatedHpas: [],
      foreignByCluster: new Map([['member1', [hpa('web-hpa', 'web')]]]),
      now,
    });
    expect(d.condition?.message).toBe(ONE);
  });

  it('scaledWorkload: a target not known yet answers undefined', () => {
    expect(scaledWorkload(cronOnFhpa, [])).toBeUndefined();
    expect(scaledWorkload(at('FederatedHPA', 'x', { kind: '', name: '' }), [])).toBeUndefined();
    expect(scaledWorkload(cronOnFhpa, [fhpa])).toEqual({ kind: 'Deployment', namespace: 'default', name: 'web' });
  });
});

/** One thing that happened to the autoscaler's condition, as the status writer folds it (mergeConditions). */
type Step = [at: string, what: 'apply' | 'foreign' | 'cleared'];

describe('the hold of a retained apply: from the latest such apply', () => {
  const foreignCondition = { type: 'ReplicaOwnerConflict', status: 'True', reason: 'ForeignMemberHPA', message: ONE };
  const cleared = { type: 'ReplicaOwnerConflict', status: 'False', reason: 'NoConflict', message: 'none' };
  /** The condition after the steps, folded as the status writer does (lastTransitionTime moves on a status change). */
  const fold = (steps: Step[]): Condition | undefined => {
    let conditions: PatchCondition[] | undefined;
    for (const [at, what] of steps) {
      const update =
        what === 'apply'
          ? appliedReplicasRetainedCondition(`an apply at ${at}`, new Date(`2026-05-04T${at}Z`))
          : what === 'foreign'
            ? foreignCondition
            : cleared;
      conditions = mergeConditions(conditions, [update], `2026-05-04T${at}Z`);
    }
    return conditions?.[0] as Condition | undefined;
  };

  it.each<[title: string, steps: Step[], now: string, expected: 'held' | 'cleared']>([
    ['one apply, a second before the hold ends', [['08:00:00', 'apply']], '08:09:59', 'held'],
    ['one apply, when the hold ends', [['08:00:00', 'apply']], '08:10:00', 'cleared'],
    [
      'applied again within the hold: past the first hold',
      [
        ['08:00:00', 'apply'],
        ['08:07:00', 'apply'],
      ],
      '08:12:00',
      'held',
    ],
    [
      'applied again within the hold: a second before the restarted hold ends',
      [
        ['08:00:00', 'apply'],
        ['08:07:00', 'apply'],
      ],
      '08:16:59',
      'held',
    ],
    [
      'applied again within the hold: when the restarted hold ends',
      [
        ['08:00:00', 'apply'],
        ['08:07:00', 'apply'],
      ],
      '08:17:00',
      'cleared',
    ],
    [
      'applied again after it cleared: a new hold',
      [
        ['08:00:00', 'apply'],
        ['08:10:00', 'cleared'],
        ['08:15:00', 'apply'],
      ],
      '08:24:59',
      'held',
    ],
    [
      'applied while a foreign member HPA stood (its transition an hour before), the HPA gone since: held from the apply',
      [
        ['07:00:00', 'foreign'],
        ['08:00:00', 'apply'],
      ],
      '08:05:00',
      'held',
    ],
    [
      'applied while a foreign member HPA stood, the HPA gone since: cleared when the hold ends',
      [
        ['07:00:00', 'foreign'],
        ['08:00:00', 'apply'],
      ],
      '08:10:00',
      'cleared',
    ],
  ])('%s', (_title, steps, at, expected) => {
    const d = decideOwnerConflict({
      autoscaler: fhpa,
      federatedHpas: [fhpa],
      foreignByCluster: new Map(),
      current: fold(steps),
      now: new Date(`2026-05-04T${at}Z`),
    });
    expect(d.condition?.reason ?? 'held').toBe(expected === 'held' ? 'held' : 'NoConflict');
  });

  it('a foreign member HPA still there outweighs an apply: the condition goes back to ForeignMemberHPA', () => {
    const d = decideOwnerConflict({
      autoscaler: fhpa,
      federatedHpas: [fhpa],
      foreignByCluster: new Map([['member1', [hpa('web-hpa', 'web')]]]),
      current: fold([
        ['07:00:00', 'foreign'],
        ['08:00:00', 'apply'],
      ]),
      now: new Date('2026-05-04T08:01:00Z'),
    });
    expect(d.condition).toMatchObject({ status: 'True', reason: 'ForeignMemberHPA', message: ONE });
  });

  it('oneTimeConflictHoldEnd: from lastUpdateTime, else (a condition written before it) lastTransitionTime', () => {
    const base = { type: 'ReplicaOwnerConflict', status: 'True', reason: 'AppliedReplicasRetained' } as const;
    expect(
      oneTimeConflictHoldEnd({
        ...base,
        lastTransitionTime: '2026-05-04T08:00:00Z',
        lastUpdateTime: '2026-05-04T08:05:00Z',
      })?.toISOString(),
    ).toBe('2026-05-04T08:15:00.000Z');
    expect(oneTimeConflictHoldEnd({ ...base, lastTransitionTime: '2026-05-04T08:00:00Z' })?.toISOString()).toBe(
      '2026-05-04T08:10:00.000Z',
    );
    expect(oneTimeConflictHoldEnd({ ...base })).toBeUndefined();
    expect(oneTimeConflictHoldEnd({ ...foreignCondition, status: 'True' })).toBeUndefined();
    expect(oneTimeConflictHoldEnd(undefined)).toBeUndefined();
    expect(appliedReplicasRetainedCondition('m', new Date('2026-05-04T08:05:00Z'))).toEqual({
      ...base,
      message: 'm',
      lastUpdateTime: '2026-05-04T08:05:00.000Z',
    });
  });
});
