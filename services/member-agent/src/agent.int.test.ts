import { DEFAULT_RESOURCE_MODELS } from '@flotilla/api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createJson, EventTypes, readEvents, type Bus, type CloudEvent } from '@flotilla/bus';
import { systemClock } from '@flotilla/runtime';
import { objectKey, ObjectStore } from '@flotilla/store';
import { testBus } from '@flotilla/bus/testing';
import { eventually } from '@flotilla/testkit';
import { SimAgent } from './agent.js';
import type { AgentLogger } from './agent-projections.js';
import type { ClusterStatusReportedData, WorkloadStatusReportedData } from './report-model.js';

const quiet: AgentLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

async function collect(bus: Bus, filter: { kind: string; name: string; type: string }): Promise<CloudEvent[]> {
  const out: CloudEvent[] = [];
  for await (const d of readEvents(bus, { filter })) out.push(d.event);
  return out;
}

describe('SimAgent against real NATS', () => {
  let bus: Bus & { dispose(): Promise<void> };
  let agent: SimAgent | undefined;

  beforeEach(async () => {
    bus = await testBus('member-agent');
  });
  afterEach(async () => {
    await agent?.stop();
    await bus.dispose();
  });

  it('reports a simulated cluster and the workload bound to it, then the cluster failing', async () => {
    const store = new ObjectStore(bus);
    await store.apply({
      apiVersion: 'cluster.karmada.io/v1alpha1',
      kind: 'Cluster',
      metadata: { name: 'm1' },
      spec: { syncMode: 'Push', simulation: { allocatable: { cpu: '2', memory: '8Gi', pods: '110' } } },
    });
    await store.apply({
      apiVersion: 'work.karmada.io/v1alpha2',
      kind: 'ResourceBinding',
      metadata: { name: 'web-deployment', namespace: 'default' },
      spec: {
        resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web', uid: 'u-1' },
        replicas: 5,
        replicaRequirements: { resourceRequest: { cpu: '500m', memory: '512Mi' } },
        clusters: [{ name: 'm1', replicas: 5 }],
      },
    });

    agent = new SimAgent({ bus, clock: systemClock, logger: quiet, tickMs: 50 });
    await agent.start();

    const clusterFilter = { kind: 'Cluster', name: 'm1', type: EventTypes.ClusterStatusReported };
    const [ready] = await eventually(
      async () => {
        const es = await collect(bus, clusterFilter);
        return es.length ? es : undefined;
      },
      10_000,
      'ClusterStatusReported',
    );
    const readyData = ready!.data as ClusterStatusReportedData;
    expect(readyData.statusPatch.conditions[0]).toMatchObject({
      type: 'Ready',
      status: 'True',
      reason: 'ClusterReady',
    });
    expect(readyData.statusPatch.resourceSummary).toEqual({
      allocatable: { cpu: '2', memory: '8Gi', pods: '110' },
      allocated: { cpu: '2', memory: '2Gi', pods: '4' },
      allocating: { cpu: '500m', memory: '512Mi', pods: '1' },
      // Its one node of 2 cpu is full: grade 0 of the default models.
      allocatableModelings: DEFAULT_RESOURCE_MODELS.map(({ grade }) => ({ grade, count: grade === 0 ? 1 : 0 })),
    });
    expect(readyData.kubeEvent).toMatchObject({ type: 'Normal', reason: 'ClusterReady' });

    const workload = await collect(bus, {
      kind: 'ResourceBinding',
      name: 'web-deployment',
      type: EventTypes.WorkloadStatusReported,
    });
    expect(workload).toHaveLength(1);
    expect(workload[0]!.subject).toBe('ResourceBinding/default/web-deployment');
    expect(workload[0]!.data as WorkloadStatusReportedData).toEqual({
      clusterName: 'm1',
      applied: true,
      health: 'Unhealthy',
      status: { replicas: 5, readyReplicas: 4, availableReplicas: 4, pendingReplicas: 1 },
      targetClusters: ['m1'],
      kubeEvent: {
        type: 'Warning',
        reason: 'PodsPending',
        message: '1 of 5 pod(s) Pending in cluster m1: no node there fits them',
      },
    });

    await store.update({ kind: 'Cluster', name: 'm1' }, (c) => {
      const spec = c.spec as { simulation: Record<string, unknown> };
      return { ...c, spec: { ...spec, simulation: { ...spec.simulation, failed: true } } };
    });
    const events = await eventually(
      async () => {
        const es = await collect(bus, clusterFilter);
        return es.length >= 2 ? es : undefined;
      },
      10_000,
      'the Ready False report',
    );
    const failed = events[1]!.data as ClusterStatusReportedData;
    expect(failed.statusPatch).toEqual({
      conditions: [
        { type: 'Ready', status: 'False', reason: 'ClusterNotReachable', message: 'cluster is not reachable' },
      ],
    });
    expect(failed.kubeEvent).toMatchObject({ type: 'Warning', reason: 'ClusterNotReady' });
    const unknown = await eventually(
      async () => {
        const es = await collect(bus, {
          kind: 'ResourceBinding',
          name: 'web-deployment',
          type: EventTypes.WorkloadStatusReported,
        });
        return es.length >= 2 ? es[1] : undefined;
      },
      10_000,
      'the Unknown workload report',
    );
    expect((unknown.data as WorkloadStatusReportedData).health).toBe('Unknown');

    // Ticks that change nothing publish nothing.
    expect(await agent.tick()).toBe(0);
    expect(await collect(bus, clusterFilter)).toHaveLength(2);
  });

  it('a new agent (a new leader) does not repeat what the stored status already says', async () => {
    const store = new ObjectStore(bus);
    await store.apply({
      apiVersion: 'cluster.karmada.io/v1alpha1',
      kind: 'Cluster',
      metadata: { name: 'm2' },
      spec: { simulation: { allocatable: { cpu: '4', memory: '8Gi', pods: '10' } } },
    });
    const first = new SimAgent({ bus, clock: systemClock, logger: quiet, tickMs: 60_000 });
    await first.start();
    await first.stop();
    const [reported] = await collect(bus, { kind: 'Cluster', name: 'm2', type: EventTypes.ClusterStatusReported });
    const patch = (reported!.data as ClusterStatusReportedData).statusPatch;
    // What the status writer would have folded (it runs as its own service; here the record is written directly).
    const status = {
      ...patch,
      conditions: patch.conditions.map((c) => ({ ...c, lastTransitionTime: reported!.time })),
    };
    await createJson(bus.status, objectKey({ kind: 'Cluster', name: 'm2' }), { seq: 1, status });

    agent = new SimAgent({ bus, clock: systemClock, logger: quiet, tickMs: 60_000 });
    await agent.start();
    expect(await collect(bus, { kind: 'Cluster', name: 'm2', type: EventTypes.ClusterStatusReported })).toHaveLength(1);
  });
});
