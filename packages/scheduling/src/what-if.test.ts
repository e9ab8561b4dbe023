import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { buildBinding } from './detection.js';
import { SchedulingInputError } from './errors.js';
import { APPLIED_PLACEMENT_ANNOTATION, appliedPlacement } from './reschedule.js';
import type {
  Placement,
  PropagationPolicy,
  ResourceBinding,
  ResourceBindingStatus,
  ResourceTemplate,
  TargetCluster,
} from './types.js';
import { whatIfSchedule } from './what-if.js';

const now = new Date('2024-04-17T15:04:05Z');
const orderedGroups = () =>
  parseAllDocuments(readFileSync(new URL('./testdata/ordered-groups.yaml', import.meta.url), 'utf8')).map(
    (d) => d.toJS() as Record<string, unknown>,
  );

const existing = (spec: Partial<ResourceBinding['spec']>, status: ResourceBinding['status']): ResourceBinding => ({
  apiVersion: 'work.karmada.io/v1alpha2',
  kind: 'ResourceBinding',
  metadata: { name: 'nginx-deployment', namespace: 'default' },
  spec: { resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'nginx' }, ...spec },
  ...(status && { status }),
});

describe('whatIfSchedule', () => {
  it('the multiple scheduling groups proposal: the unavailable first group is skipped, dc-beijing holds the replicas', () => {
    const out = whatIfSchedule(orderedGroups(), now);
    expect(out).toHaveLength(1);
    const b = out[0]!;
    expect(b.kind).toBe('ResourceBinding');
    expect(b.metadata.name).toBe('nginx-deployment');
    expect(b.spec.resource.uid).toBe('4858ca61-3ff8-4095-8267-f3d059d8074c');
    expect(b.spec.replicas).toBe(2);
    expect(b.spec.replicaRequirements).toEqual({ resourceRequest: { cpu: '500m', memory: '256Mi' } });
    expect(b.spec.clusters).toEqual([{ name: 'member1', replicas: 2 }]);
    // stored at generation 1 by detection, 2 once the scheduler wrote its clusters, with the placement recorded as applied
    expect(b.metadata.generation).toBe(2);
    expect(JSON.parse(b.metadata.annotations![APPLIED_PLACEMENT_ANNOTATION]!)).toEqual(b.spec.placement);
    expect(b.status).toEqual({
      schedulerObservingAffinityName: 'dc-beijing',
      lastScheduledTime: '2024-04-17T15:04:05Z',
      schedulerObservedGeneration: 2,
      conditions: [
        {
          type: 'Scheduled',
          status: 'True',
          reason: 'Success',
          message: 'Binding has been scheduled successfully.',
          lastTransitionTime: '2024-04-17T15:04:05Z',
        },
      ],
    });
  });

  it('the multiple scheduling groups proposal, failover: member1 tainted NoExecute moves the replicas to dc-hongkong', () => {
    const docs = orderedGroups();
    (docs[0]!.spec as Record<string, unknown>).taints = [{ key: 'cluster.karmada.io/not-ready', effect: 'NoExecute' }];
    const prev = existing(
      { clusters: [{ name: 'member1', replicas: 2 }] },
      { schedulerObservingAffinityName: 'dc-beijing', lastScheduledTime: '2024-04-17T15:00:00Z' },
    );
    const [b] = whatIfSchedule([...docs, prev], now);
    expect(b!.spec.clusters).toEqual([{ name: 'member2', replicas: 2 }]);
    expect(b!.status!.schedulerObservingAffinityName).toBe('dc-hongkong');
  });

  it('an existing binding resumes its observed group (Steady)', () => {
    const prev = existing(
      { clusters: [{ name: 'member2', replicas: 2 }] },
      { schedulerObservingAffinityName: 'dc-hongkong', lastScheduledTime: '2024-04-17T15:00:00Z' },
    );
    const [b] = whatIfSchedule([...orderedGroups(), prev], now);
    expect(b!.spec.clusters).toEqual([{ name: 'member2', replicas: 2 }]);
    expect(b!.status!.schedulerObservingAffinityName).toBe('dc-hongkong');
  });

  it('rescheduleTriggeredAt later than lastScheduledTime recomputes from the first group (Fresh)', () => {
    const prev = existing(
      { clusters: [{ name: 'member2', replicas: 2 }], rescheduleTriggeredAt: '2024-04-17T15:04:00Z' },
      { schedulerObservingAffinityName: 'dc-hongkong', lastScheduledTime: '2024-04-17T15:00:00Z' },
    );
    const [b] = whatIfSchedule([...orderedGroups(), prev], now);
    expect(b!.spec.rescheduleTriggeredAt).toBe('2024-04-17T15:04:00Z');
    expect(b!.spec.clusters).toEqual([{ name: 'member1', replicas: 2 }]);
    expect(b!.status!.schedulerObservingAffinityName).toBe('dc-beijing');
    expect(b!.status!.lastScheduledTime).toBe('2024-04-17T15:04:05Z');
  });

  it('honours template UIDs for tie-breaks', () => {
    const cl = (name: string) => ({
      apiVersion: 'cluster.karmada.io/v1alpha1',
      kind: 'Cluster',
      metadata: { name },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    });
    const dep = (name: string, uid: string) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: 'default', uid },
      spec: { replicas: 3 },
    });
    const policy = {
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: 'all', namespace: 'default' },
      spec: {
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment' }],
        placement: { replicaScheduling: { replicaSchedulingType: 'Divided' } },
      },
    };
    const out = whatIfSchedule(
      [
        cl('m1'),
        cl('m2'),
        dep('even', '4858ca61-3ff8-4095-8267-f3d059d8074c'),
        dep('odd', 'd43fdeeb-d750-4e2b-bee3-64eb94534f4c'),
        policy,
      ],
      now,
    );
    expect(out.map((b) => [b.metadata.name, b.spec.clusters])).toEqual([
      [
        'even-deployment',
        [
          { name: 'm1', replicas: 2 },
          { name: 'm2', replicas: 1 },
        ],
      ],
      [
        'odd-deployment',
        [
          { name: 'm1', replicas: 1 },
          { name: 'm2', replicas: 2 },
        ],
      ],
    ]);
  });

  it("lists the bindings in the scheduler queue's order: by their policy's schedulePriority, equal ones as they came", () => {
    const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' } });
    const policy = (name: string, priorityClassName?: string) => ({
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name, namespace: 'default' },
      spec: {
        resourceSelectors: [{ apiVersion: 'v1', kind: 'ConfigMap', name }],
        ...(priorityClassName && {
          schedulePriority: { priorityClassSource: 'KubePriorityClass', priorityClassName },
        }),
      },
    });
    const pc = (name: string, value: number) => ({
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name },
      value,
    });
    const docs = [
      ...orderedGroups().slice(0, 2),
      pc('low', 10),
      pc('high', 1000),
      ...['plain', 'batch', 'urgent', 'missing', 'urgent2'].map(cm),
      policy('plain'),
      policy('batch', 'low'),
      policy('urgent', 'high'),
      policy('missing', 'no-such-class'),
      policy('urgent2', 'high'),
    ];
    const out = whatIfSchedule(docs, now);
    expect(out.map((b) => [b.metadata.name, b.spec.schedulePriority])).toEqual([
      ['urgent-configmap', { priority: 1000 }],
      ['urgent2-configmap', { priority: 1000 }],
      ['batch-configmap', { priority: 10 }],
      ['plain-configmap', undefined],
      // a class that does not exist gives 0, as no class does
      ['missing-configmap', { priority: 0 }],
    ]);
  });

  it('propagates non-workloads to every cluster with 0 replicas and skips unmatched templates', () => {
    const docs = [
      ...orderedGroups().slice(0, 2),
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'default' }, data: { a: '1' } },
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'nope', namespace: 'default' } },
      {
        apiVersion: 'policy.karmada.io/v1alpha1',
        kind: 'ClusterPropagationPolicy',
        metadata: { name: 'cms' },
        spec: { resourceSelectors: [{ apiVersion: 'v1', kind: 'ConfigMap' }] },
      },
      null,
    ];
    const out = whatIfSchedule(docs, now);
    expect(out.map((b) => [b.kind, b.metadata.name, b.spec.clusters])).toEqual([
      [
        'ResourceBinding',
        'cfg-configmap',
        [
          { name: 'member1', replicas: 0 },
          { name: 'member2', replicas: 0 },
        ],
      ],
    ]);
  });

  it('reports a failed schedule with the previous assignment kept', () => {
    const docs = orderedGroups().slice(2); // no clusters at all
    const prev = existing(
      { clusters: [{ name: 'member1', replicas: 2 }] },
      { schedulerObservingAffinityName: 'dc-beijing' },
    );
    const [b] = whatIfSchedule([...docs, prev], now);
    expect(b!.spec.clusters).toEqual([{ name: 'member1', replicas: 2 }]);
    const cond = b!.status!.conditions!.find((c) => c.type === 'Scheduled')!;
    expect(cond.status).toBe('False');
    expect(cond.reason).toBe('NoClusterFit');
    expect(cond.message).toContain('group dc-beijing: 0/0 clusters are available');
    expect(cond.message).toContain('group dc-hongkong:');
    expect(cond.message).toContain('previous assignment kept (member1:2)');
  });

  it('schedules a given binding that no template produced as it stands', () => {
    const lone = existing({ replicas: 1, placement: { clusterAffinity: { clusterNames: ['member2'] } } }, undefined);
    const out = whatIfSchedule([...orderedGroups().slice(0, 2), lone], now);
    expect(out.map((b) => b.spec.clusters)).toEqual([[{ name: 'member2', replicas: 1 }]]);
  });

  it.each([
    { docs: [42], path: 'objects[0]', msg: 'objects[0]: expected a Kubernetes object' },
    {
      docs: [null, { apiVersion: 'v1', metadata: { name: 'x' } }],
      path: 'objects[1].kind',
      msg: 'objects[1].kind: required',
    },
    {
      docs: [{ kind: 'ConfigMap', metadata: { name: 'x' } }],
      path: 'objects[0].apiVersion',
      msg: 'objects[0].apiVersion: required',
    },
    {
      docs: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }],
      path: 'objects[0].metadata.name',
      msg: 'objects[0].metadata.name: required',
    },
    {
      docs: [{ apiVersion: 'policy.karmada.io/v1alpha1', kind: 'PropagationPolicy', metadata: { name: 'p' } }],
      path: 'objects[0].spec',
      msg: 'objects[0].spec: required',
    },
    {
      docs: [{ apiVersion: 'work.karmada.io/v1alpha2', kind: 'ResourceBinding', metadata: { name: 'b' }, spec: {} }],
      path: 'objects[0].spec.resource',
      msg: 'objects[0].spec.resource: required',
    },
    {
      docs: [{ kind: 'List', items: [{ apiVersion: 'v1', kind: 'ConfigMap' }] }],
      path: 'objects[0].items[0].metadata.name',
      msg: 'objects[0].items[0].metadata.name: required',
    },
  ])('rejects $path', ({ docs, path, msg }) => {
    let err: unknown;
    try {
      whatIfSchedule(docs, now);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SchedulingInputError);
    expect((err as SchedulingInputError).path).toBe(path);
    expect((err as Error).message).toBe(msg);
  });

  it('names the template field of a bad replica count', () => {
    const docs = orderedGroups();
    (docs[2]!.spec as Record<string, unknown>).replicas = -2;
    expect(() => whatIfSchedule(docs, now)).toThrow('objects[2].spec.replicas: must be a non-negative integer, got -2');
  });
});

// Existing bindings as the service stores them: claimed by a policy, scheduled under an applied placement. Only
// Karmada's reasons schedule them again (scheduleTrigger); what-if takes the service's path, so it agrees.
describe('whatIfSchedule: existing bindings as the service decides them', () => {
  const cluster = (name: string, pool = 'a') => ({
    apiVersion: 'cluster.karmada.io/v1alpha1',
    kind: 'Cluster',
    metadata: { name, labels: { pool } },
    status: {
      conditions: [{ type: 'Ready', status: 'True' }],
      resourceSummary: { allocatable: { cpu: '8', pods: '110' } },
    },
  });
  const clusters = [cluster('m1'), cluster('m2')];
  const web = (replicas: number): ResourceTemplate => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', uid: '4858ca61-3ff8-4095-8267-f3d059d8074c' },
    spec: { replicas, template: { spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] } } },
  });
  const dynamic: Placement = {
    clusterAffinity: { labelSelector: { matchLabels: { pool: 'a' } } },
    replicaScheduling: {
      replicaSchedulingType: 'Divided',
      replicaDivisionPreference: 'Weighted',
      weightPreference: { dynamicWeight: 'AvailableReplicas' },
    },
  };
  const policy = (
    name: string,
    placement: Placement,
    spec: Partial<PropagationPolicy['spec']> = {},
  ): PropagationPolicy => ({
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'PropagationPolicy',
    metadata: { name, namespace: 'default' },
    spec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }], placement, ...spec },
  });
  const scheduledAt = '2024-04-17T15:00:00Z';
  const folded: ResourceBindingStatus = {
    schedulerObservedGeneration: 5,
    lastScheduledTime: scheduledAt,
    conditions: [
      {
        type: 'Scheduled',
        status: 'True',
        reason: 'Success',
        message: 'Binding has been scheduled successfully.',
        lastTransitionTime: scheduledAt,
      },
    ],
  };
  /** The binding the service stored for `template` under `by`: detected, scheduled at `clusters`, its status folded. */
  const stored = (
    template: ResourceTemplate,
    by: PropagationPolicy,
    clusters: TargetCluster[],
    spec: Partial<ResourceBinding['spec']> = {},
  ): ResourceBinding => {
    const b = buildBinding(template, by);
    return {
      ...b,
      metadata: {
        ...b.metadata,
        generation: 5,
        annotations: { ...b.metadata.annotations, [APPLIED_PLACEMENT_ANNOTATION]: appliedPlacement(b.spec.placement) },
      },
      spec: { ...b.spec, clusters, ...spec },
      status: folded,
    };
  };
  const uneven = [
    { name: 'm1', replicas: 3 },
    { name: 'm2', replicas: 1 },
  ];
  const a = policy('a', dynamic);

  it('a fresh schedule divides 4 replicas evenly over the two equal clusters', () => {
    expect(whatIfSchedule([...clusters, web(4), a], now)[0]!.spec.clusters).toEqual([
      { name: 'm1', replicas: 2 },
      { name: 'm2', replicas: 2 },
    ]);
  });

  it.each([
    { case: 'the clusters as they were', members: clusters },
    // A schedule would move m2's replica to m1, but a cluster that stops matching is no reason to schedule.
    { case: 'm2 no longer matching the affinity', members: [cluster('m1'), cluster('m2', 'b')] },
  ])(
    'a Divided binding under its applied placement whose clusters add up to its replicas is kept as it is ($case)',
    ({ members }) => {
      const prev = stored(web(4), a, uneven);
      const [b] = whatIfSchedule([...members, web(4), a, prev], now);
      expect(b).toEqual(prev); // not redistributed; nothing changed, so nothing is written or announced
    },
  );

  it('the same binding scaled up is scheduled Steady: the current replicas stay and the new ones are added', () => {
    const [b] = whatIfSchedule([...clusters, web(6), a, stored(web(4), a, uneven)], now);
    expect(b!.spec.replicas).toBe(6);
    expect(b!.spec.clusters).toEqual([
      { name: 'm1', replicas: 4 },
      { name: 'm2', replicas: 2 },
    ]); // afresh: 3 and 3
    // detection changed spec (6), then so did the scheduler (7); the decision is folded into status
    expect(b!.metadata.generation).toBe(7);
    expect(b!.status).toMatchObject({ schedulerObservedGeneration: 7, lastScheduledTime: '2024-04-17T15:04:05Z' });
    expect(b!.status!.conditions).toEqual([
      {
        type: 'Scheduled',
        status: 'True',
        reason: 'Success',
        message: 'Binding has been scheduled successfully.',
        lastTransitionTime: scheduledAt,
      },
    ]);
  });

  it('rescheduleTriggeredAt later than lastScheduledTime schedules afresh (Fresh)', () => {
    const prev = stored(web(4), a, uneven, { rescheduleTriggeredAt: '2024-04-17T15:02:00Z' });
    const [b] = whatIfSchedule([...clusters, web(4), a, prev], now);
    expect(b!.spec.clusters).toEqual([
      { name: 'm1', replicas: 2 },
      { name: 'm2', replicas: 2 },
    ]);
    expect(b!.status).toMatchObject({ lastScheduledTime: '2024-04-17T15:04:05Z', schedulerObservedGeneration: 6 });
  });

  describe('the policy that claimed the template keeps it', () => {
    const onM1: Placement = { clusterAffinity: { clusterNames: ['m1'] } };
    const onM2: Placement = { clusterAffinity: { clusterNames: ['m2'] } };
    const prev = stored(web(4), policy('a', onM1), [{ name: 'm1', replicas: 4 }]);

    it('a higher-priority policy without preemption leaves the claim and its placement alone', () => {
      const [b] = whatIfSchedule(
        [...clusters, web(4), policy('a', onM1), policy('b', onM2, { priority: 10, preemption: 'Never' }), prev],
        now,
      );
      expect(b!.metadata.annotations!['propagationpolicy.karmada.io/name']).toBe('a');
      expect(b!.spec.placement).toEqual(onM1);
      expect(b!.spec.clusters).toEqual([{ name: 'm1', replicas: 4 }]);
    });

    it('with preemption Always it takes the template over, and the binding moves to its placement', () => {
      const [b] = whatIfSchedule(
        [...clusters, web(4), policy('a', onM1), policy('b', onM2, { priority: 10, preemption: 'Always' }), prev],
        now,
      );
      expect(b!.metadata.annotations).toMatchObject({
        'propagationpolicy.karmada.io/name': 'b',
        [APPLIED_PLACEMENT_ANNOTATION]: appliedPlacement(onM2),
      });
      expect(b!.spec.placement).toEqual(onM2);
      expect(b!.spec.clusters).toEqual([{ name: 'm2', replicas: 4 }]);
    });
  });
});
