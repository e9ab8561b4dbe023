import { describe, expect, it } from 'vitest';
import { trailAddresses } from './addresses.js';
import {
  foldReplicaTrail,
  formatTrailField,
  formatTrailValue,
  initialTrailState,
  resumeReplicaTrail,
  type TrailEntry,
  type TrailEvent,
  type TrailState,
} from './fold.js';

let clock = 0;
const ev = (type: string, kind: string, name: string, data: unknown): TrailEvent => ({
  type,
  kind,
  namespace: 'default',
  name,
  time: `2026-05-04T08:00:${String(clock++ % 60).padStart(2, '0')}Z`,
  data,
});
const line = (e: TrailEntry) =>
  `${formatTrailField(e.field)}: ${formatTrailValue(e.from)} -> ${formatTrailValue(e.to)} by ${e.by}${e.why ? ` (${e.why})` : ''}`;

type Case = [title: string, events: TrailEvent[], lines: string[]];

describe('foldReplicaTrail: who changed the replicas, and why', () => {
  it.each<Case>([
    [
      'a user applies, with the token name; a second apply without a change adds nothing',
      [
        ev('ReplicasApplied', 'Deployment', 'web', {
          fromReplicas: null,
          requestedReplicas: 3,
          toReplicas: 3,
          caller: 'alice',
          via: 'http',
          outcome: 'created',
        }),
        ev('ReplicasApplied', 'Deployment', 'web', {
          fromReplicas: 3,
          requestedReplicas: 3,
          toReplicas: 3,
          via: 'nats',
          outcome: 'configured',
        }),
        ev('ReplicasApplied', 'Deployment', 'web', {
          fromReplicas: 3,
          requestedReplicas: 5,
          toReplicas: 5,
          via: 'nats',
          outcome: 'configured',
        }),
      ],
      [
        'spec.replicas: - -> 3 by user alice through the gateway (http) (apply (created))',
        'spec.replicas: 3 -> 5 by a user through the gateway (nats) (apply (configured))',
      ],
    ],
    [
      "an apply meeting an autoscaled workload: the autoscaler's count is kept and the trail says so",
      [
        ev('ReplicasApplied', 'Deployment', 'web', {
          fromReplicas: 8,
          requestedReplicas: 2,
          toReplicas: 8,
          caller: 'bob',
          via: 'http',
          outcome: 'configured',
          retainedBy: 'FederatedHPA web',
        }),
      ],
      [],
    ],
    [
      'a CronFederatedHPA rule sets the replicas; the old value comes from the trail before it',
      [
        ev('ReplicasApplied', 'Deployment', 'web', {
          fromReplicas: null,
          requestedReplicas: 2,
          toReplicas: 2,
          via: 'nats',
          outcome: 'created',
        }),
        ev('CronRuleExecuted', 'CronFederatedHPA', 'web-cron', {
          ruleName: 'scale-up',
          scheduleTime: '2026-05-04T08:30:00Z',
          appliedReplicas: 10,
        }),
      ],
      [
        'spec.replicas: - -> 2 by a user through the gateway (nats) (apply (created))',
        'spec.replicas: 2 -> 10 by CronFederatedHPA default/web-cron rule scale-up (scheduled at 2026-05-04T08:30:00Z)',
      ],
    ],
    [
      "a CronFederatedHPA rule aimed at the FederatedHPA sets its min; the member HPAs follow, by the FederatedHPA's reason",
      [
        ev('FederatedHPAAssigned', 'FederatedHPA', 'shop', {
          reason: 'Initial',
          assignments: [
            { cluster: 'm1', minReplicas: 1, maxReplicas: 4 },
            { cluster: 'm2', minReplicas: 2, maxReplicas: 8 },
          ],
          bindingClusters: [
            { name: 'm1', replicas: 1 },
            { name: 'm2', replicas: 2 },
          ],
          kubeEvent: { message: 'initial assignment' },
        }),
        ev('CronRuleExecuted', 'CronFederatedHPA', 'shop-floor', {
          ruleName: 'floor',
          scheduleTime: '2026-05-04T09:00:00Z',
          appliedMinReplicas: 6,
          target: 'FederatedHPA shop',
        }),
        ev('FederatedHPAAssigned', 'FederatedHPA', 'shop', {
          reason: 'Reassigned',
          assignments: [
            { cluster: 'm1', minReplicas: 2, maxReplicas: 4 },
            { cluster: 'm2', minReplicas: 4, maxReplicas: 8 },
          ],
          bindingClusters: [
            { name: 'm1', replicas: 2 },
            { name: 'm2', replicas: 4 },
          ],
          kubeEvent: { message: 'the FederatedHPA changed' },
        }),
      ],
      [
        'member HPA m1: - -> min 1 max 4 by FederatedHPA default/shop (Initial) (initial assignment)',
        'member HPA m2: - -> min 2 max 8 by FederatedHPA default/shop (Initial) (initial assignment)',
        'cluster m1: - -> 1 by FederatedHPA default/shop (Initial) (initial assignment)',
        'cluster m2: - -> 2 by FederatedHPA default/shop (Initial) (initial assignment)',
        'FederatedHPA shop min/max: - -> min 6 by CronFederatedHPA default/shop-floor rule floor (scheduled at 2026-05-04T09:00:00Z)',
        'member HPA m1: min 1 max 4 -> min 2 max 4 by FederatedHPA default/shop (Reassigned) (the FederatedHPA changed)',
        'member HPA m2: min 2 max 8 -> min 4 max 8 by FederatedHPA default/shop (Reassigned) (the FederatedHPA changed)',
        'cluster m1: 1 -> 2 by FederatedHPA default/shop (Reassigned) (the FederatedHPA changed)',
        'cluster m2: 2 -> 4 by FederatedHPA default/shop (Reassigned) (the FederatedHPA changed)',
      ],
    ],
    [
      'an EffectiveHPA names its winning source; the shipped FederatedHPA its message',
      [
        ev('EffectiveHPAScaled', 'EffectiveHorizontalPodAutoscaler', 'web', {
          source: 'cron',
          fromReplicas: 22,
          toReplicas: 24,
          kubeEvent: { message: 'New size: 24; reason: cron proposed 24' },
        }),
        ev('FederatedHPARescaled', 'FederatedHPA', 'web', {
          statusPatch: { currentReplicas: 24, desiredReplicas: 30 },
          kubeEvent: { message: 'New size: 30' },
        }),
        ev('EffectiveHPAScaled', 'EffectiveHorizontalPodAutoscaler', 'web', {
          source: 'specificReplicas',
          fromReplicas: 30,
          toReplicas: 6,
          kubeEvent: { message: 'pinned' },
        }),
      ],
      [
        'spec.replicas: 22 -> 24 by EffectiveHorizontalPodAutoscaler default/web (winning source: cron) (New size: 24; reason: cron proposed 24)',
        'spec.replicas: 24 -> 30 by FederatedHPA default/web (New size: 30)',
        'spec.replicas: 30 -> 6 by EffectiveHorizontalPodAutoscaler default/web (specificReplicas) (pinned)',
      ],
    ],
    [
      "the scheduler's division, a failover, and a rebalance named by its WorkloadRebalancer",
      [
        ev('BindingScheduled', 'ResourceBinding', 'web-deployment', {
          trigger: 'ReplicasChanged',
          clusters: [
            { name: 'm1', replicas: 3 },
            { name: 'm2', replicas: 3 },
          ],
          kubeEvent: { message: 'Divided scheduling: m1:3, m2:3' },
        }),
        ev('BindingScheduled', 'ResourceBinding', 'web-deployment', {
          kept: true,
          clusters: [
            { name: 'm1', replicas: 3 },
            { name: 'm2', replicas: 3 },
          ],
        }),
        ev('BindingScheduled', 'ResourceBinding', 'web-deployment', {
          trigger: 'ClusterEvicted',
          clusters: [{ name: 'm2', replicas: 6 }],
          kubeEvent: { message: 'Divided scheduling: m2:6' },
        }),
        ev('WorkloadRescheduleTriggered', 'Deployment', 'web', { rebalancer: 'spread-again' }),
        ev('BindingScheduled', 'ResourceBinding', 'web-deployment', {
          trigger: 'RescheduleRequested',
          clusters: [
            { name: 'm1', replicas: 3 },
            { name: 'm2', replicas: 3 },
          ],
          kubeEvent: { message: 'Fresh' },
        }),
      ],
      [
        "cluster m1: - -> 3 by affinity-scheduler (the template's replicas changed) (Divided scheduling: m1:3, m2:3)",
        "cluster m2: - -> 3 by affinity-scheduler (the template's replicas changed) (Divided scheduling: m1:3, m2:3)",
        'cluster m2: 3 -> 6 by affinity-scheduler (failover) (Divided scheduling: m2:6)',
        'cluster m1: 3 -> - by affinity-scheduler (failover) (Divided scheduling: m2:6)',
        'cluster m1: - -> 3 by affinity-scheduler (rebalance by WorkloadRebalancer spread-again) (Fresh)',
        'cluster m2: 6 -> 3 by affinity-scheduler (rebalance by WorkloadRebalancer spread-again) (Fresh)',
      ],
    ],
    [
      "owner conflicts: a member HPA Flotilla did not create, on the FederatedHPA's workload, and its CronFederatedHPA; then gone",
      [
        ev('ReplicaOwnerConflict', 'FederatedHPA', 'shop', {
          conflicts: ['m2/default/shop-local'],
          autoscaler: 'FederatedHPA/shop',
          statusPatch: {
            conditions: [
              { type: 'ReplicaOwnerConflict', status: 'True', reason: 'ForeignMemberHPA', message: 'two writers (m2)' },
            ],
          },
          kubeEvent: { type: 'Warning', reason: 'ReplicaOwnerConflict', message: 'two writers (m2)' },
        }),
        // The same Warning on the workload carries no condition: the autoscaler's entry says it.
        ev('ReplicaOwnerConflict', 'Deployment', 'shop', {
          conflicts: ['m2/default/shop-local'],
          autoscaler: 'FederatedHPA/shop',
          kubeEvent: { type: 'Warning', reason: 'ReplicaOwnerConflict', message: 'two writers (m2)' },
        }),
        ev('ReplicaOwnerConflict', 'CronFederatedHPA', 'shop-floor', {
          conflicts: ['m2/default/shop-local'],
          autoscaler: 'CronFederatedHPA/shop-floor',
          statusPatch: {
            conditions: [
              {
                type: 'ReplicaOwnerConflict',
                status: 'True',
                reason: 'ForeignMemberHPA',
                message: 'two writers (m2, cron)',
              },
            ],
          },
        }),
        ev('ReplicaOwnerConflict', 'FederatedHPA', 'shop', {
          conflicts: ['m2/default/shop-local', 'm3/default/other'],
          autoscaler: 'FederatedHPA/shop',
          statusPatch: {
            conditions: [
              {
                type: 'ReplicaOwnerConflict',
                status: 'True',
                reason: 'ForeignMemberHPA',
                message: 'two writers (m2, m3)',
              },
            ],
          },
        }),
        ev('ReplicaOwnerConflictResolved', 'FederatedHPA', 'shop', {
          conflicts: [],
          autoscaler: 'FederatedHPA/shop',
          statusPatch: {
            conditions: [
              { type: 'ReplicaOwnerConflict', status: 'False', reason: 'NoConflict', message: 'no other writer' },
            ],
          },
          kubeEvent: { type: 'Normal', reason: 'ReplicaOwnerConflictResolved', message: 'no other writer' },
        }),
      ],
      [
        'FederatedHPA shop ReplicaOwnerConflict: - -> True (ForeignMemberHPA) by member HPA m2/default/shop-local (not created by Flotilla) (two writers (m2))',
        'CronFederatedHPA shop-floor ReplicaOwnerConflict: - -> True (ForeignMemberHPA) by member HPA m2/default/shop-local (not created by Flotilla) (two writers (m2, cron))',
        'FederatedHPA shop ReplicaOwnerConflict: True (ForeignMemberHPA) -> True (ForeignMemberHPA) by member HPA m2/default/shop-local, member HPA m3/default/other (not created by Flotilla) (two writers (m2, m3))',
        'FederatedHPA shop ReplicaOwnerConflict: True (ForeignMemberHPA) -> False (NoConflict) by hpa-assigner (replica-owners) (no other writer)',
      ],
    ],
    [
      "owner conflicts: an apply kept back by the EffectiveHPA, twice (each is told), then the hold's end",
      [
        ev('ReplicasApplied', 'Deployment', 'web', {
          fromReplicas: 24,
          requestedReplicas: 5,
          toReplicas: 24,
          caller: 'alice',
          via: 'http',
          outcome: 'configured',
          retainedBy: 'EffectiveHorizontalPodAutoscaler default/web',
        }),
        ev('ReplicaOwnerConflict', 'EffectiveHorizontalPodAutoscaler', 'web', {
          workload: 'Deployment/web',
          caller: 'alice',
          via: 'http',
          statusPatch: {
            conditions: [
              {
                type: 'ReplicaOwnerConflict',
                status: 'True',
                reason: 'AppliedReplicasRetained',
                message: 'kept 24 (asked for 5)',
              },
            ],
          },
        }),
        ev('ReplicaOwnerConflict', 'EffectiveHorizontalPodAutoscaler', 'web', {
          workload: 'Deployment/web',
          via: 'nats',
          statusPatch: {
            conditions: [
              {
                type: 'ReplicaOwnerConflict',
                status: 'True',
                reason: 'AppliedReplicasRetained',
                message: 'kept 24 (asked for 6)',
              },
            ],
          },
        }),
        ev('ReplicaOwnerConflictResolved', 'EffectiveHorizontalPodAutoscaler', 'web', {
          statusPatch: { conditions: [{ type: 'ReplicaOwnerConflict', status: 'False', reason: 'NoConflict' }] },
          kubeEvent: { type: 'Normal', reason: 'ReplicaOwnerConflictResolved', message: 'no other writer' },
        }),
      ],
      [
        'EffectiveHorizontalPodAutoscaler web ReplicaOwnerConflict: - -> True (AppliedReplicasRetained) by user alice through the gateway (http) (kept 24 (asked for 5))',
        'EffectiveHorizontalPodAutoscaler web ReplicaOwnerConflict: True (AppliedReplicasRetained) -> True (AppliedReplicasRetained) by a user through the gateway (nats) (kept 24 (asked for 6))',
        'EffectiveHorizontalPodAutoscaler web ReplicaOwnerConflict: True (AppliedReplicasRetained) -> False (NoConflict) by hpa-assigner (replica-owners) (no other writer)',
      ],
    ],
    [
      'events of other types and malformed data change nothing',
      [
        ev('WorkloadStatusReported', 'ResourceBinding', 'web-deployment', { clusterName: 'm1' }),
        ev('CronRuleExecuted', 'CronFederatedHPA', 'c', 'not an object'),
        ev('EffectiveHPAScaled', 'EffectiveHorizontalPodAutoscaler', 'e', { toReplicas: 'many' }),
        ev('ReplicaOwnerConflict', 'FederatedHPA', 'f', { statusPatch: { conditions: 'none' } }),
        ev('ReplicaOwnerConflict', 'FederatedHPA', 'f', {
          statusPatch: { conditions: [{ type: 'Other', status: 'True' }] },
        }),
        ev('ReplicaOwnerConflictResolved', 'FederatedHPA', 'f', {
          statusPatch: { conditions: [{ type: 'ReplicaOwnerConflict' }] },
        }),
      ],
      [],
    ],
  ])('%s', (_title, events, lines) => {
    const whole = foldReplicaTrail(events);
    expect(whole.map(line)).toEqual(lines);
    // A projection stores the state as JSON and resumes from it: every split point gives the whole fold's entries.
    for (let cut = 0; cut <= events.length; cut++) {
      const first = resumeReplicaTrail(initialTrailState(), events.slice(0, cut));
      const stored = JSON.parse(JSON.stringify(first.state)) as TrailState;
      const rest = resumeReplicaTrail(stored, events.slice(cut));
      expect([...first.entries, ...rest.entries]).toEqual(whole);
    }
  });

  it('resumes a state stored before owner conflicts were folded (it has none)', () => {
    const { conflicts: _none, ...old } = initialTrailState();
    const conflict = ev('ReplicaOwnerConflict', 'FederatedHPA', 'web', {
      conflicts: ['m1/default/web'],
      statusPatch: { conditions: [{ type: 'ReplicaOwnerConflict', status: 'True', reason: 'ForeignMemberHPA' }] },
    });
    const resumed = resumeReplicaTrail(old, [conflict]);
    expect(resumed.entries).toEqual(foldReplicaTrail([conflict]));
    expect(resumed.state.conflicts).toEqual([['FederatedHPA web', { status: 'True', reason: 'ForeignMemberHPA' }]]);
  });

  it('keeps the event time and type on each entry', () => {
    const e = ev('EffectiveHPAScaled', 'EffectiveHorizontalPodAutoscaler', 'web', {
      source: 'observed',
      fromReplicas: 1,
      toReplicas: 2,
    });
    expect(foldReplicaTrail([e])).toEqual([
      {
        time: e.time,
        field: { kind: 'replicas' },
        from: 1,
        to: 2,
        by: 'EffectiveHorizontalPodAutoscaler default/web (winning source: observed)',
        why: '',
        event: 'EffectiveHPAScaled',
      },
    ]);
  });
});

describe('trailAddresses: the subjects of one workload, and no others', () => {
  it('reads the workload, its binding, and the autoscalers aimed at it (and crons aimed at those)', () => {
    const a = (kind: string, name: string, target: { kind: string; name: string }) => ({
      kind,
      metadata: { name, namespace: 'default' },
      spec: { scaleTargetRef: target },
    });
    const addresses = trailAddresses({ kind: 'Deployment', namespace: 'default', name: 'web' }, [
      a('FederatedHPA', 'web-hpa', { kind: 'Deployment', name: 'web' }),
      a('FederatedHPA', 'other-hpa', { kind: 'Deployment', name: 'other' }),
      a('EffectiveHorizontalPodAutoscaler', 'web-ehpa', { kind: 'Deployment', name: 'web' }),
      a('CronFederatedHPA', 'on-hpa', { kind: 'FederatedHPA', name: 'web-hpa' }),
      a('CronFederatedHPA', 'on-web', { kind: 'Deployment', name: 'web' }),
      a('CronFederatedHPA', 'on-other', { kind: 'FederatedHPA', name: 'other-hpa' }),
    ]);
    expect(addresses.map((x) => `${x.kind}/${x.name}/${x.type}`)).toEqual([
      'Deployment/web/ReplicasApplied',
      'Deployment/web/WorkloadRescheduleTriggered',
      'ResourceBinding/web-deployment/BindingScheduled',
      'ResourceBinding/web-deployment/FailBackTriggered',
      'FederatedHPA/web-hpa/FederatedHPAAssigned',
      'FederatedHPA/web-hpa/FederatedHPARescaled',
      'FederatedHPA/web-hpa/ReplicaOwnerConflict',
      'FederatedHPA/web-hpa/ReplicaOwnerConflictResolved',
      'EffectiveHorizontalPodAutoscaler/web-ehpa/EffectiveHPAScaled',
      'EffectiveHorizontalPodAutoscaler/web-ehpa/ReplicaOwnerConflict',
      'EffectiveHorizontalPodAutoscaler/web-ehpa/ReplicaOwnerConflictResolved',
      'CronFederatedHPA/on-hpa/CronRuleExecuted',
      'CronFederatedHPA/on-hpa/ReplicaOwnerConflict',
      'CronFederatedHPA/on-hpa/ReplicaOwnerConflictResolved',
      'CronFederatedHPA/on-web/CronRuleExecuted',
      'CronFederatedHPA/on-web/ReplicaOwnerConflict',
      'CronFederatedHPA/on-web/ReplicaOwnerConflictResolved',
    ]);
    expect(addresses.every((x) => x.namespace === 'default')).toBe(true);
  });
});
