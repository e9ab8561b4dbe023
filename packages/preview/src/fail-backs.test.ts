import {
  type Cluster,
  type PropagationPolicy,
  type ResourceBinding,
  type ResourceTemplate,
  whatIfSchedule,
} from '@flotilla/scheduling';
import { describe, expect, it } from 'vitest';
import { previewFailBacks } from './fail-backs.js';

const now = new Date('2026-01-01T00:10:00Z');
const ago = (s: number) => new Date(now.getTime() - s * 1000).toISOString();

const cluster = (name: string): Cluster => ({
  apiVersion: 'cluster.karmada.io/v1alpha1',
  kind: 'Cluster',
  metadata: { name },
  spec: {},
  status: {
    conditions: [{ type: 'Ready', status: 'True' }],
    resourceSummary: { allocatable: { pods: '110', cpu: '8', memory: '32Gi' } },
  },
});

const deployment = (name: string): ResourceTemplate => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'default', uid: `u-${name}` },
  spec: { replicas: 2, template: { spec: { containers: [{ name: 'c', resources: { requests: { cpu: '100m' } } }] } } },
});

const policy: PropagationPolicy = {
  apiVersion: 'policy.karmada.io/v1alpha1',
  kind: 'PropagationPolicy',
  metadata: { name: 'shop', namespace: 'default' },
  spec: {
    resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment' }],
    placement: {
      clusterAffinities: [
        { affinityName: 'primary', clusterNames: ['member1'] },
        { affinityName: 'backup', clusterNames: ['member2'] },
      ],
      replicaScheduling: { replicaSchedulingType: 'Duplicated' },
    },
    failover: { failback: { enabled: true, stabilizationWindow: '1m' } },
  } as PropagationPolicy['spec'],
};

/** The bindings as they are after a failover to the backup group, each with its fail-back hold recorded. */
function failedOver(holds: Record<string, number>, scheduledAgo = 3000): ResourceBinding[] {
  const templates = Object.keys(holds).map(deployment);
  return whatIfSchedule([cluster('member1'), cluster('member2'), policy, ...templates], new Date(ago(3600))).map(
    (b): ResourceBinding => ({
      ...b,
      spec: { ...b.spec, clusters: [{ name: 'member2', replicas: 2 }] },
      status: {
        ...b.status,
        schedulerObservingAffinityName: 'backup',
        lastScheduledTime: ago(scheduledAgo),
        aggregatedStatus: [{ clusterName: 'member2', status: { replicas: 2 } }],
        failBack: { holdingSince: ago(holds[b.spec.resource.name]!), fromGroup: 'backup', toGroup: 'primary' },
      } as ResourceBinding['status'],
    }),
  );
}

describe('previewFailBacks', () => {
  it('plans with the budget it is given and says where each would land: back to member1, the second a period later', () => {
    const state = {
      clusters: [cluster('member1'), cluster('member2')],
      policies: [policy],
      templates: [deployment('cart'), deployment('shop')],
      bindings: failedOver({ cart: 90, shop: 120 }),
    };
    const q = previewFailBacks(state, { budget: { max: 1, periodMs: 30_000 }, now });
    expect(q.budget).toEqual({ max: 1, periodMs: 30_000 });
    expect(
      q.items.map((i) => [i.name, i.turn, i.moveAt, i.waitingFor, i.clusters, i.targetClusters, i.targetGroup]),
    ).toEqual([
      [
        'shop-deployment',
        1,
        now.toISOString(),
        'None',
        [{ name: 'member2', replicas: 2 }],
        [{ name: 'member1', replicas: 2 }],
        'primary',
      ],
      [
        'cart-deployment',
        2,
        new Date(now.getTime() + 30_000).toISOString(),
        'Budget',
        [{ name: 'member2', replicas: 2 }],
        [{ name: 'member1', replicas: 2 }],
        'primary',
      ],
    ]);
    // The default budget (10 a minute) would move both now: the budget given is the one planned with.
    const roomy = previewFailBacks(state, { budget: { max: 10, periodMs: 60_000 }, now });
    expect(roomy.items.map((i) => i.waitingFor)).toEqual(['None', 'None']);
  });

  it('a hold that began in the second of the failover: where it lands is decided when it moves, past its window', () => {
    const state = {
      clusters: [cluster('member1'), cluster('member2')],
      policies: [policy],
      templates: [deployment('shop')],
      bindings: failedOver({ shop: 0 }, 0),
    };
    const [item] = previewFailBacks(state, { budget: { max: 10, periodMs: 60_000 }, now }).items;
    expect(item).toMatchObject({
      waitingFor: 'StabilizationWindow',
      moveAt: new Date(now.getTime() + 60_000).toISOString(),
      targetClusters: [{ name: 'member1', replicas: 2 }],
      targetGroup: 'primary',
    });
  });

  it('nothing waits: an empty queue, and no preview run', () => {
    const q = previewFailBacks(
      { clusters: [cluster('member1')], policies: [policy], templates: [], bindings: [] },
      { budget: { max: 1, periodMs: 30_000 }, now },
    );
    expect(q).toEqual({
      kind: 'FailBackQueue',
      now: '2026-01-01T00:10:00Z',
      budget: { max: 1, periodMs: 30_000 },
      items: [],
      unknowns: [],
    });
  });
});
