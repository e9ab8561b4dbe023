import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventTypes, readEvents, type Bus, type CloudEvent } from '@flotilla/bus';
import { ManualClock } from '@flotilla/runtime';
import { testBus } from '@flotilla/bus/testing';
import type { ClusterStatusReportedData } from '../sim/cluster-sim.js';
import type { KubeClusterApi } from './kube-api.js';
import { KubeDriver } from './kube-driver.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe('KubeDriver against real NATS (fake API server)', () => {
  let bus: Bus & { dispose(): Promise<void> };
  beforeEach(async () => {
    bus = await testBus('kube-driver');
  });
  afterEach(async () => {
    await bus.dispose();
  });

  it('reports on change only, and Ready False while the API server does not answer', async () => {
    let up = true;
    const api: KubeClusterApi = {
      version: async () => {
        if (!up) throw new Error('connect ECONNREFUSED');
        return 'v1.30.4';
      },
      listNodes: async () => [{ status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' } } }],
      listPods: async () => [],
    };
    const driver = new KubeDriver({
      clusterName: 'prod-1',
      api,
      bus,
      clock: new ManualClock(Date.parse('2025-06-01T00:00:00Z')),
      logger: quiet,
      pollMs: 60_000,
    });
    expect(await driver.poll()).toBe(true);
    expect(await driver.poll()).toBe(false);
    up = false;
    expect(await driver.poll()).toBe(true);
    up = true;
    expect(await driver.poll()).toBe(true);

    const events: CloudEvent[] = [];
    for await (const d of readEvents(bus, {
      filter: { kind: 'Cluster', name: 'prod-1', type: EventTypes.ClusterStatusReported },
    }))
      events.push(d.event);
    const data = events.map((e) => e.data as ClusterStatusReportedData);
    expect(data.map((d) => d.statusPatch.conditions[0]!.status)).toEqual(['True', 'False', 'True']);
    expect(data.map((d) => d.kubeEvent?.reason)).toEqual(['ClusterReady', 'ClusterNotReady', 'ClusterReady']);
    expect(data[0]!.statusPatch.resourceSummary?.allocatable).toEqual({ cpu: '4', memory: '8Gi', pods: '110' });
    expect(new Set(events.map((e) => e.id)).size).toBe(3);
  });
});
