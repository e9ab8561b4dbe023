import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, testBus } from '@flotilla/testkit';
import { publishEvent, readEvents, type Bus, type CloudEvent } from '@flotilla/bus';
import { admit } from '@flotilla/api';
import { ObjectStore, StatusStore, type StoredObject } from '@flotilla/store';
import { AffinitySchedulerController } from './controller.js';

let bus: Bus & { dispose(): Promise<void> };
let store: ObjectStore;
let controller: AffinitySchedulerController;
let seq = 1_000_000;
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

async function cluster(name: string, ready: boolean, cpu = '8') {
  await store.apply(admit({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name, labels: { name } }, spec: {} }) as StoredObject);
  await reportCluster(name, ready, cpu);
}

/** Writes a cluster's status as the status writer would after a member-agent report. */
async function reportCluster(name: string, ready: boolean, cpu = '8') {
  await new StatusStore(bus).fold({ kind: 'Cluster', name }, seq++, () => ({
    conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', reason: ready ? 'ClusterReady' : 'ClusterNotReachable', lastTransitionTime: '2026-01-01T00:00:00Z' }],
    resourceSummary: { allocatable: { cpu, memory: '64Gi', pods: '110' }, allocated: { cpu: '0', memory: '0', pods: '0' } },
  }));
}

const apply = (o: unknown) => store.apply(admit(o) as StoredObject);
const binding = (name: string) => store.get({ kind: 'ResourceBinding', namespace: 'default', name });
const clustersOf = async (name: string) => ((await binding(name))?.spec as { clusters?: Array<{ name: string; replicas?: number }> } | undefined)?.clusters;

beforeAll(async () => {
  bus = await testBus('sched');
  store = new ObjectStore(bus);
  await cluster('member1', true);
  await cluster('member2', true);
  await cluster('member3', true, '2');
  controller = new AffinitySchedulerController({ bus, store, publish: (e) => publishEvent(bus, e), logger: silent, failoverGraceMs: 200, resyncMs: 60_000 });
  await controller.start();
});
afterAll(async () => {
  await controller?.stop();
  await bus?.dispose();
});

const deployment = (name: string, replicas: number) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'default' },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '500m', memory: '256Mi' } } }] } } },
});

describe('affinity scheduler (in-process, real NATS)', () => {
  it('seed 003: falls through an unavailable group, then fails over to the next group when the cluster is tainted', async () => {
    await apply(deployment('nginx', 2));
    await apply({
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: 'nginx', namespace: 'default' },
      spec: {
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'nginx' }],
        placement: {
          clusterAffinities: [
            { affinityName: 'dc-shanghai', clusterNames: ['unavailable'] },
            { affinityName: 'dc-beijing', clusterNames: ['member1'] },
            { affinityName: 'dc-hongkong', clusterNames: ['member2'] },
          ],
          replicaScheduling: { replicaSchedulingType: 'Duplicated' },
        },
      },
    });
    expect(await eventually(async () => (await clustersOf('nginx-deployment'))?.length ? clustersOf('nginx-deployment') : undefined, 10_000, 'nginx scheduled')).toEqual([{ name: 'member1', replicas: 2 }]);
    const scheduled: CloudEvent[] = [];
    for await (const d of readEvents(bus, { filter: { kind: 'ResourceBinding', name: 'nginx-deployment', type: 'BindingScheduled' } })) scheduled.push(d.event);
    expect((scheduled.at(-1)!.data as { affinityName: string }).affinityName).toBe('dc-beijing');
    // fold the decision into status as the status writer would, so the scheduler resumes from dc-beijing
    await new StatusStore(bus).fold({ kind: 'ResourceBinding', namespace: 'default', name: 'nginx-deployment' }, seq++, () => (scheduled.at(-1)!.data as { statusPatch: object }).statusPatch);

    await reportCluster('member1', false);
    const moved = await eventually(async () => {
      const c = await clustersOf('nginx-deployment');
      return c?.[0]?.name === 'member2' ? c : undefined;
    }, 10_000, 'failover to dc-hongkong');
    expect(moved).toEqual([{ name: 'member2', replicas: 2 }]);
    const taints = ((await store.mustGet({ kind: 'Cluster', name: 'member1' })).spec as { taints?: Array<{ key: string; effect: string }> }).taints;
    expect(taints?.map((t) => `${t.key}:${t.effect}`)).toEqual(['cluster.karmada.io/not-ready:NoExecute']);

    // recovery removes the taint but does not pull nginx back (that is the rebalancer's job)
    await reportCluster('member1', true);
    await eventually(async () => (((await store.mustGet({ kind: 'Cluster', name: 'member1' })).spec as { taints?: unknown[] }).taints === undefined ? true : undefined), 10_000, 'taint removed');
    await controller.idle();
    expect(await clustersOf('nginx-deployment')).toEqual([{ name: 'member2', replicas: 2 }]);
  });

  it('divides by static weights and follows a scale-up in Steady mode', async () => {
    await apply(deployment('web', 6));
    await apply({
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }],
        placement: {
          clusterAffinity: { clusterNames: ['member2', 'member3'] },
          replicaScheduling: {
            replicaSchedulingType: 'Divided',
            replicaDivisionPreference: 'Weighted',
            weightPreference: { staticWeightList: [{ targetCluster: { clusterNames: ['member2'] }, weight: 2 }, { targetCluster: { clusterNames: ['member3'] }, weight: 1 }] },
          },
        },
      },
    });
    const first = await eventually(async () => ((await clustersOf('web-deployment'))?.length ? clustersOf('web-deployment') : undefined), 10_000, 'web scheduled');
    expect(first).toEqual([{ name: 'member2', replicas: 4 }, { name: 'member3', replicas: 2 }]);
    await apply(deployment('web', 9));
    const scaled = await eventually(async () => {
      const c = await clustersOf('web-deployment');
      return c && c.reduce((s, x) => s + (x.replicas ?? 0), 0) === 9 ? c : undefined;
    }, 10_000, 'scale-up');
    expect(scaled).toEqual([{ name: 'member2', replicas: 6 }, { name: 'member3', replicas: 3 }]);
  });

  it('deletes the binding when its template goes', async () => {
    await store.delete({ kind: 'Deployment', namespace: 'default', name: 'web' });
    await eventually(async () => ((await binding('web-deployment')) ? undefined : true), 10_000, 'binding removed');
  });
});
