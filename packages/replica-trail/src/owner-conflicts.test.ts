import { describe, expect, it } from 'vitest';
import type { Condition, ForeignHorizontalPodAutoscaler } from '@flotilla/api';
import type { AutoscalerLike } from './addresses.js';
import { decideOwnerConflict, ONE_TIME_CONFLICT_HOLD_MS, scaledWorkload } from './owner-conflicts.js';

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
