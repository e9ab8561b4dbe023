import { describe, expect, it } from 'vitest';
import {
  autoscalerRows,
  ManifestError,
  parseManifests,
  type PreviewAnswer,
  previewRows,
  previewUnknowns,
} from './preview.js';

const answer: PreviewAnswer = {
  kind: 'Preview',
  now: '2026-01-01T00:00:00Z',
  bindings: [
    {
      namespace: 'default',
      kind: 'ResourceBinding',
      name: 'web-deployment',
      resource: 'Deployment/web',
      outcome: 'Moved',
      at: '2026-01-01T00:00:30Z',
      before: [
        { name: 'member1', replicas: 4 },
        { name: 'member2', replicas: 2 },
      ],
      after: [{ name: 'member2', replicas: 6 }],
      groupBefore: 'primary',
      groupAfter: 'backup',
      rejected: [{ cluster: 'member1', reason: 'cluster(s) had untolerated taint' }],
    },
    {
      kind: 'ResourceBinding',
      name: 'batch-deployment',
      resource: 'Deployment/batch',
      outcome: 'Unschedulable',
      at: '2026-01-01T00:00:30Z',
      before: [{ name: 'member1', replicas: 2 }],
      after: [{ name: 'member1', replicas: 2 }],
      rejected: [],
      message: 'no cluster fits',
    },
  ],
  autoscalers: [
    {
      kind: 'FederatedHPA',
      name: 'web',
      target: 'Deployment/web',
      at: '2026-01-01T00:00:00Z',
      replicasBefore: 6,
      replicasAfter: 4,
      reason: 'TooManyReplicas',
      notKnown: 'metrics not read',
    },
  ],
  unknowns: ['a member whose lease expires'],
  truncated: { notPreviewed: 3 },
};

describe('the Preview page', () => {
  it('shows each binding before → after, its group change and what was rejected, an unschedulable one kept', () => {
    expect(previewRows(answer)).toEqual([
      {
        binding: 'default/web-deployment',
        outcome: 'Moved',
        at: '2026-01-01T00:00:30Z',
        before: 'member1:4, member2:2',
        after: 'member2:6',
        group: 'primary → backup',
        rejected: 'member1: cluster(s) had untolerated taint',
      },
      {
        binding: 'batch-deployment',
        outcome: 'Unschedulable',
        at: '2026-01-01T00:00:30Z',
        before: 'member1:2',
        after: 'member1:2 (kept): no cluster fits',
        group: '',
        rejected: '',
      },
    ]);
  });

  it("shows the autoscalers' replica changes and every unknown, a cut short last", () => {
    expect(autoscalerRows(answer)).toEqual([
      {
        autoscaler: 'FederatedHPA/web',
        rule: '',
        target: 'Deployment/web',
        at: '2026-01-01T00:00:00Z',
        replicas: '6 → 4',
        reason: 'TooManyReplicas',
      },
    ]);
    expect(previewUnknowns(answer)).toEqual([
      'FederatedHPA web: metrics not read',
      'a member whose lease expires',
      'cut short: 3 bindings not looked at',
    ]);
  });

  it('reads pasted YAML documents, and refuses what is not objects naming the document', () => {
    expect(parseManifests('kind: A\nmetadata: { name: a }\n---\n---\nkind: B\nmetadata: { name: b }\n')).toEqual([
      { kind: 'A', metadata: { name: 'a' } },
      { kind: 'B', metadata: { name: 'b' } },
    ]);
    expect(() => parseManifests('kind: A\n---\n- 1\n')).toThrow(/^document 2: expected a Kubernetes object/);
    expect(() => parseManifests('kind: [\n')).toThrow(ManifestError);
    expect(() => parseManifests('\n')).toThrow(/nothing to preview/);
  });
});
