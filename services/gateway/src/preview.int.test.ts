// The gateway's `preview` operation against real NATS: the live state read from the store (objects and their status),
// the scheduler's functions run on it with the change laid over, and nothing written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidRequestError } from '@flotilla/api';
import { publishEvent, type Bus } from '@flotilla/bus';
import { testBus } from '@flotilla/bus/testing';
import { KubeEventStore, ObjectStore, StatusStore } from '@flotilla/store';
import { GatewayHandler } from './handler.js';
import { review } from './http-api.js';

let bus: Bus & { dispose(): Promise<void> };
let handler: GatewayHandler;
let store: ObjectStore;

const policy = (w1: number, w2: number) => ({
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

beforeAll(async () => {
  bus = await testBus('gw-preview');
  store = new ObjectStore(bus);
  handler = new GatewayHandler({ store, kubeEvents: new KubeEventStore(bus), publish: (e) => publishEvent(bus, e) });
  const statuses = new StatusStore(bus);
  for (const name of ['member1', 'member2']) {
    await store.apply({
      apiVersion: 'cluster.karmada.io/v1alpha1',
      kind: 'Cluster',
      metadata: { name },
      spec: {},
    } as never);
    await statuses.fold({ kind: 'Cluster', name }, 1, () => ({
      conditions: [{ type: 'Ready', status: 'True' }],
      resourceSummary: { allocatable: { pods: '110', cpu: '16', memory: '64Gi' } },
    }));
  }
  await handler.apply({ object: policy(2, 1) });
  await handler.apply({
    object: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        replicas: 6,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
      },
    },
  });
  // Where the scheduler put it (2:1 of 6), as it stores a scheduled binding: its clusters and the applied placement.
  const placement = policy(2, 1).spec.placement;
  await store.apply({
    apiVersion: 'work.karmada.io/v1alpha2',
    kind: 'ResourceBinding',
    metadata: {
      name: 'web-deployment',
      namespace: 'default',
      annotations: {
        'propagationpolicy.karmada.io/name': 'web',
        'propagationpolicy.karmada.io/namespace': 'default',
        'policy.karmada.io/applied-placement': JSON.stringify(placement),
      },
    },
    spec: {
      resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' },
      replicas: 6,
      placement,
      clusters: [
        { name: 'member1', replicas: 4 },
        { name: 'member2', replicas: 2 },
      ],
    },
  } as never);
});
afterAll(async () => {
  await bus?.dispose();
});

describe('preview', () => {
  it('a policy change: the binding touched, before → after, nothing written', async () => {
    const p = await handler.preview({ objects: [policy(1, 2)] });
    const b = p.bindings.find((x) => x.name === 'web-deployment');
    expect(b).toMatchObject({
      outcome: 'Moved',
      before: [
        { name: 'member1', replicas: 4 },
        { name: 'member2', replicas: 2 },
      ],
    });
    expect(b!.after).toEqual(
      expect.arrayContaining([
        { name: 'member1', replicas: 2 },
        { name: 'member2', replicas: 4 },
      ]),
    );
    const stored = await store.mustGet({ kind: 'PropagationPolicy', namespace: 'default', name: 'web' });
    expect(
      (stored.spec as ReturnType<typeof policy>['spec']).placement.replicaScheduling.weightPreference
        .staticWeightList[0]!.weight,
    ).toBe(2);
  });

  it('a cluster failure: the replicas move to the cluster left', async () => {
    const p = await handler.preview({ cluster: { action: 'fail', name: 'member2' } });
    expect(p.bindings[0]).toMatchObject({ name: 'web-deployment', after: [{ name: 'member1', replicas: 6 }] });
  });

  it('a bad request names its field', async () => {
    await expect(handler.preview({ cluster: { action: 'drain' as never, name: 'member2' } })).rejects.toThrow(
      InvalidRequestError,
    );
    await expect(handler.preview({ cluster: { action: 'fail', name: 'nope' } })).rejects.toThrow(/cluster/);
  });

  it('the webhook answers a dry run with the moves as warnings, and a real apply with none', async () => {
    const request = { uid: 'u1', object: policy(1, 2), dryRun: true };
    const dry = (await review({ request }, handler)) as { response: { allowed: boolean; warnings?: string[] } };
    expect(dry.response).toMatchObject({
      allowed: true,
      warnings: ['flotilla: web-deployment member1:4→2 member2:2→4'],
    });
    const wet = (await review({ request: { ...request, dryRun: false } }, handler)) as {
      response: { warnings?: string[] };
    };
    expect(wet.response.warnings).toBeUndefined();
  });
});
