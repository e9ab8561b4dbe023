import { describe, expect, it } from 'vitest';
import type { TrailEntry } from '@flotilla/replica-trail';
import { trailTable } from './explain.js';

describe('trailTable: one line per replica trail entry', () => {
  it('prints an owner conflict as its autoscaler condition changing, beside a replica change', () => {
    const entries: TrailEntry[] = [
      {
        time: '2026-05-04T08:00:00Z',
        field: { kind: 'replicas' },
        from: 22,
        to: 24,
        by: 'EffectiveHorizontalPodAutoscaler default/web (winning source: cron)',
        why: 'cron',
        event: 'EffectiveHPAScaled',
      },
      {
        time: '2026-05-04T08:01:00Z',
        field: { kind: 'ownerConflict', autoscaler: 'EffectiveHorizontalPodAutoscaler web' },
        from: null,
        to: { status: 'True', reason: 'AppliedReplicasRetained' },
        by: 'user alice through the gateway (http)',
        why: 'kept 24',
        event: 'ReplicaOwnerConflict',
      },
      {
        time: '2026-05-04T08:11:00Z',
        field: { kind: 'ownerConflict', autoscaler: 'EffectiveHorizontalPodAutoscaler web' },
        from: { status: 'True', reason: 'AppliedReplicasRetained' },
        to: { status: 'False', reason: 'NoConflict' },
        by: 'hpa-assigner (replica-owners)',
        why: 'no other writer',
        event: 'ReplicaOwnerConflictResolved',
      },
    ];
    const lines = trailTable(entries)
      .split('\n')
      .map((l) => l.trim().split(/\s{2,}/));
    expect(lines).toEqual([
      ['TIME', 'FIELD', 'FROM', 'TO', 'BY', 'WHY'],
      [
        '2026-05-04T08:00:00Z',
        'spec.replicas',
        '22',
        '24',
        'EffectiveHorizontalPodAutoscaler default/web (winning source: cron)',
        'cron',
      ],
      [
        '2026-05-04T08:01:00Z',
        'EffectiveHorizontalPodAutoscaler web ReplicaOwnerConflict',
        '-',
        'True (AppliedReplicasRetained)',
        'user alice through the gateway (http)',
        'kept 24',
      ],
      [
        '2026-05-04T08:11:00Z',
        'EffectiveHorizontalPodAutoscaler web ReplicaOwnerConflict',
        'True (AppliedReplicasRetained)',
        'False (NoConflict)',
        'hpa-assigner (replica-owners)',
        'no other writer',
      ],
    ]);
  });
});
