import {
  type Cluster,
  type PropagationPolicy,
  type ResourceBinding,
  type ResourceTemplate,
  whatIfSchedule,
} from '@flotilla/scheduling';
import { describe, expect, it } from 'vitest';
import { PreviewInputError } from './errors.js';
import { type LiveState, previewChange, previewWarnings } from './preview.js';

const now = new Date('2024-04-17T15:04:05Z');

const cluster = (name: string, cpu = '16', allocated?: Record<string, string>): Cluster => ({
  apiVersion: 'cluster.karmada.io/v1alpha1',
  kind: 'Cluster',
  metadata: { name },
  spec: {},
  status: {
    conditions: [{ type: 'Ready', status: 'True' }],
    resourceSummary: { allocatable: { pods: '110', cpu, memory: '64Gi' }, ...(allocated && { allocated }) },
  },
});

const web: ResourceTemplate = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', uid: 'u-web', labels: { app: 'web' } },
  spec: {
    replicas: 6,
    template: { spec: { containers: [{ name: 'c', resources: { requests: { cpu: '100m' } } }] } },
  },
};

const weighted = (w1: number, w2: number): PropagationPolicy => ({
  apiVersion: 'policy.karmada.io/v1alpha1',
  kind: 'PropagationPolicy',
  metadata: { name: 'web', namespace: 'default' },
  spec: {
    resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }],
    placement: {
      clusterAffinity: { clusterNames: ['member1', 'member2'] },
      replicaScheduling: {
        replicaSchedulingType: 'Divided',
        replicaDivisionPreference: 'Weighted',
        weightPreference: {
          staticWeightList: [
            { targetCluster: { clusterNames: ['member1'] }, weight: w1 },
            { targetCluster: { clusterNames: ['member2'] }, weight: w2 },
          ],
        },
      },
    },
  },
});

/** The live state the scheduler leaves: the bindings whatIfSchedule writes, each member having reported its pods. */
function live(clusters: Cluster[], policies: PropagationPolicy[], templates: ResourceTemplate[]): LiveState {
  const bindings = whatIfSchedule([...clusters, ...policies, ...templates], now).map(
    (b): ResourceBinding => ({
      ...b,
      status: {
        ...b.status,
        aggregatedStatus: (b.spec.clusters ?? []).map((c) => ({
          clusterName: c.name,
          status: { replicas: c.replicas },
        })),
      } as ResourceBinding['status'],
    }),
  );
  return { clusters, policies, templates, bindings };
}

describe('previewChange', () => {
  it('a policy change of weights moves replicas: member1 4→2, member2 2→4, and says so as kubectl warnings', () => {
    const state = live([cluster('member1'), cluster('member2')], [weighted(2, 1)], [web]);
    expect(state.bindings[0]!.spec.clusters).toEqual([
      { name: 'member1', replicas: 4 },
      { name: 'member2', replicas: 2 },
    ]);
    const p = previewChange(state, { objects: [weighted(1, 2)] }, { now });
    expect(p.bindings).toHaveLength(1);
    const b = p.bindings[0]!;
    expect(b).toMatchObject({
      name: 'web-deployment',
      namespace: 'default',
      resource: 'Deployment/web',
      outcome: 'Moved',
      trigger: 'PlacementChanged',
      before: [
        { name: 'member1', replicas: 4 },
        { name: 'member2', replicas: 2 },
      ],
    });
    expect([...b.after].sort((x, y) => x.name.localeCompare(y.name))).toEqual([
      { name: 'member1', replicas: 2 },
      { name: 'member2', replicas: 4 },
    ]);
    expect(previewWarnings(p)).toEqual(['flotilla: web-deployment member1:4→2 member2:2→4']);
    // Nothing in the state was changed by the preview.
    expect(state.bindings[0]!.spec.clusters).toEqual([
      { name: 'member1', replicas: 4 },
      { name: 'member2', replicas: 2 },
    ]);
  });

  it('the same policy applied again moves nothing', () => {
    const state = live([cluster('member1'), cluster('member2')], [weighted(2, 1)], [web]);
    expect(previewChange(state, { objects: [weighted(2, 1)] }, { now }).bindings).toEqual([]);
  });

  it('a new template is created and placed; rejected clusters are named with their reason', () => {
    const state = live([cluster('member1'), cluster('member2'), cluster('member3')], [weighted(1, 1)], []);
    const p = previewChange(state, { objects: [web] }, { now });
    expect(p.bindings).toHaveLength(1);
    expect(p.bindings[0]).toMatchObject({ outcome: 'Created', before: [] });
    expect(p.bindings[0]!.rejected).toEqual([
      { cluster: 'member3', reason: 'cluster(s) did not match the placement cluster affinity constraint' },
    ]);
    expect(previewWarnings(p)).toEqual(['flotilla: web-deployment member1:0→3 member2:0→3']);
  });

  it('a cluster failure moves its replicas after the failover grace; what finds no room stays Unschedulable', () => {
    const state = live([cluster('member1'), cluster('member2')], [weighted(1, 1)], [web]);
    const p = previewChange(state, { cluster: { action: 'fail', cluster: 'member2' } }, { now });
    expect(p.bindings).toHaveLength(1);
    expect(p.bindings[0]).toMatchObject({
      outcome: 'Moved',
      trigger: 'ClusterEvicted',
      at: '2024-04-17T15:04:35Z',
      after: [{ name: 'member1', replicas: 6 }],
    });
    expect(p.bindings[0]!.rejected[0]).toMatchObject({ cluster: 'member2' });
    // member1 holds 4 replicas of 100m, 3 of them running: 6 find no room there, and the assignment is kept.
    const aggregated = weighted(1, 1);
    aggregated.spec.placement!.replicaScheduling = {
      replicaSchedulingType: 'Divided',
      replicaDivisionPreference: 'Aggregated',
    };
    const small = live([cluster('member1', '400m'), cluster('member2', '400m')], [aggregated], [web]);
    const running = { cpu: '300m', pods: '3' };
    small.clusters = [cluster('member1', '400m', running), cluster('member2', '400m', running)];
    const q = previewChange(small, { cluster: { action: 'fail', cluster: 'member2' } }, { now });
    expect(q.bindings[0]).toMatchObject({ outcome: 'Unschedulable', after: q.bindings[0]!.before });
    expect(previewWarnings(q)[0]).toMatch(/^flotilla: web-deployment stays unschedulable: /);
  });

  it('a cordon moves nothing already placed (NoSchedule) but a new template avoids the cordoned cluster', () => {
    const state = live([cluster('member1'), cluster('member2')], [weighted(1, 1)], [web]);
    expect(previewChange(state, { cluster: { action: 'cordon', cluster: 'member2' } }, { now }).bindings).toEqual([]);
  });

  it('a NoExecute taint tolerated for 60 s moves the replicas when the toleration runs out', () => {
    const tolerant = weighted(1, 1);
    tolerant.spec.placement!.clusterTolerations = [
      { key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 },
    ];
    const state = live([cluster('member1'), cluster('member2')], [tolerant], [web]);
    const p = previewChange(
      state,
      { cluster: { action: 'taint', cluster: 'member2', taint: { key: 'k', effect: 'NoExecute' } } },
      { now },
    );
    expect(p.bindings[0]).toMatchObject({ at: '2024-04-17T15:05:05Z', after: [{ name: 'member1', replicas: 6 }] });
  });

  it('states what it cannot know: pods not reported yet, clusters not Ready, leases expiring meanwhile', () => {
    const state = live([cluster('member1'), cluster('member2')], [weighted(2, 1)], [web]);
    const unreported = {
      ...state,
      bindings: state.bindings.map((b) => ({ ...b, status: { ...b.status, aggregatedStatus: [] } })),
    };
    const p = previewChange(unreported, { objects: [weighted(1, 2)] }, { now });
    expect(p.unknowns).toContain(
      'web-deployment on member1: 0 of 4 pods reported; the rest are counted as assumed, as the scheduler counts them, until the member reports',
    );
    expect(p.unknowns.some((u) => u.startsWith('a member whose lease expires'))).toBe(true);
  });

  it('stops at its deadline and counts what it did not look at', () => {
    const state = live([cluster('member1'), cluster('member2')], [weighted(2, 1)], [web]);
    const p = previewChange(state, { objects: [weighted(1, 2)] }, { now, deadlineMs: 0, clock: () => 1 });
    expect(p.truncated).toEqual({ notPreviewed: 1 });
    expect(previewWarnings(p)).toEqual([
      'flotilla: preview cut short: 1 bindings not looked at within the time allowed',
    ]);
  });

  it('refuses a cluster action on a cluster that does not exist, naming the field', () => {
    const state = live([cluster('member1')], [], []);
    expect(() => previewChange(state, { cluster: { action: 'fail', cluster: 'nope' } }, { now })).toThrow(
      new PreviewInputError('cluster', 'no cluster named "nope"'),
    );
  });
});

describe('previewChange: the autoscalers applied', () => {
  const fhpa = (min: number, max: number) => ({
    apiVersion: 'autoscaling.karmada.io/v1alpha1',
    kind: 'FederatedHPA',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: min,
      maxReplicas: max,
    },
  });
  const cron = (scaleTargetRef: object, rules: object[]) => ({
    apiVersion: 'autoscaling.karmada.io/v1alpha1',
    kind: 'CronFederatedHPA',
    metadata: { name: 'web-cron', namespace: 'default' },
    spec: { scaleTargetRef, rules },
  });
  const state = () => live([cluster('member1'), cluster('member2')], [weighted(2, 1)], [web]);

  it('a FederatedHPA whose max is under the running replicas scales web 6→4 now (the HPA controller clamp), and its binding follows', () => {
    const p = previewChange(state(), { objects: [fhpa(1, 4)] }, { now });
    expect(p.autoscalers).toEqual([
      {
        kind: 'FederatedHPA',
        namespace: 'default',
        name: 'web',
        target: 'Deployment/web',
        at: '2024-04-17T15:04:05Z',
        replicasBefore: 6,
        replicasAfter: 4,
        reason: 'TooManyReplicas',
        notKnown: expect.stringMatching(/^metrics not read: /),
      },
    ]);
    expect(p.bindings.map((b) => [b.name, b.after])).toEqual([
      [
        'web-deployment',
        [
          { name: 'member1', replicas: 3 },
          { name: 'member2', replicas: 1 },
        ],
      ],
    ]);
    expect(previewWarnings(p)).toEqual([
      'flotilla: web-deployment member1:4→3 member2:2→1',
      'flotilla: FederatedHPA web Deployment/web 6→4 (TooManyReplicas) at 2024-04-17T15:04:05Z',
    ]);
  });

  it('a FederatedHPA whose min and max hold the running replicas moves nothing', () => {
    const p = previewChange(state(), { objects: [fhpa(2, 10)] }, { now });
    expect(p.autoscalers[0]).toMatchObject({ replicasBefore: 6, replicasAfter: 6, reason: 'DesiredWithinRange' });
    expect(p.bindings).toEqual([]);
  });

  it('a CronFederatedHPA rule sets its replicas at the next fire time in its zone, past an excluded date; a suspended rule is not shown', () => {
    const p = previewChange(
      state(),
      {
        objects: [
          cron({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, [
            // 23:04 in Shanghai now: 08:00 there is 00:00Z tomorrow, the 18th, excluded, so the 19th.
            {
              name: 'morning',
              schedule: '0 8 * * *',
              timeZone: 'Asia/Shanghai',
              targetReplicas: 10,
              excludeDates: ['2024-04-18'],
            },
            { name: 'off', schedule: '0 9 * * *', targetReplicas: 1, suspend: true },
          ]),
        ],
      },
      { now },
    );
    expect(p.autoscalers).toEqual([
      {
        kind: 'CronFederatedHPA',
        namespace: 'default',
        name: 'web-cron',
        target: 'Deployment/web',
        rule: 'morning',
        at: '2024-04-19T00:00:00Z',
        replicasBefore: 6,
        replicasAfter: 10,
        reason: 'CronRule',
        notKnown: expect.stringMatching(/^the state at that time is not known/),
      },
    ]);
    // Not now: nothing moves yet.
    expect(p.bindings).toEqual([]);
  });

  it('a CronFederatedHPA rule on a FederatedHPA sets its min/max; the replicas are the running ones clamped into them', () => {
    const s = { ...state(), federatedHpas: [fhpa(1, 10)] };
    const p = previewChange(
      s,
      {
        objects: [
          cron({ apiVersion: 'autoscaling.karmada.io/v1alpha1', kind: 'FederatedHPA', name: 'web' }, [
            { name: 'night', schedule: '0 22 * * *', timeZone: '', targetMaxReplicas: 3 },
          ]),
        ],
      },
      { now },
    );
    expect(p.autoscalers[0]).toMatchObject({
      target: 'FederatedHPA/web',
      at: '2024-04-17T22:00:00Z',
      minReplicas: 1,
      maxReplicas: 3,
      replicasBefore: 6,
      replicasAfter: 3,
    });
    expect(p.autoscalers[0]!.notKnown).toMatch(/metrics not read/);
  });

  it("an EffectiveHPA's open cron window raises the replicas now (ehpa's cronProposal), the prediction named as not run", () => {
    const ehpa = {
      apiVersion: 'autoscaling.crane.io/v1alpha1',
      kind: 'EffectiveHorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        minReplicas: 1,
        maxReplicas: 20,
        prediction: { predictionWindowSeconds: 3600, predictionAlgorithm: { algorithmType: 'dsp' } },
        crons: [{ name: 'evening', start: '0 15 * * *', end: '0 16 * * *', targetReplicas: 9 }],
      },
    };
    const p = previewChange(state(), { objects: [ehpa] }, { now });
    expect(p.autoscalers[0]).toMatchObject({
      kind: 'EffectiveHorizontalPodAutoscaler',
      replicasBefore: 6,
      replicasAfter: 9,
      reason: 'cron window evening',
    });
    expect(p.autoscalers[0]!.notKnown).toMatch(/the prediction is not run/);
    expect(p.bindings[0]!.after).toEqual([
      { name: 'member1', replicas: 6 },
      { name: 'member2', replicas: 3 },
    ]);
  });
});
