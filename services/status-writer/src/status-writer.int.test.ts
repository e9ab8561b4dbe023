import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBus } from '@flotilla/bus/testing';
import { cloudEvent, publishEvent, readEvents, type Bus, type DeliveredEvent } from '@flotilla/bus';
import { KubeEventStore, ObjectStore, StatusStore } from '@flotilla/store';
import { defaultReducers } from './default-reducers.js';
import { StatusWriter } from './status-writer.js';
import { rebuildStatus } from './replay.js';

let bus: Bus & { dispose(): Promise<void> };
beforeAll(async () => {
  bus = await testBus('sw');
});
afterAll(async () => {
  await bus?.dispose();
});

const clusterReport = (name: string, ready: boolean, t: number) =>
  cloudEvent({
    source: 'member-agent',
    type: 'ClusterStatusReported',
    kind: 'Cluster',
    name,
    time: new Date(Date.UTC(2026, 0, 1, 0, 0, t)),
    data: {
      statusPatch: {
        kubernetesVersion: 'v1.31.0',
        conditions: [
          { type: 'Ready', status: ready ? 'True' : 'False', reason: ready ? 'ClusterReady' : 'ClusterNotReachable' },
        ],
      },
      kubeEvent: ready
        ? { type: 'Normal', reason: 'ClusterReady', message: 'cluster is ready' }
        : { type: 'Warning', reason: 'ClusterNotReady', message: 'cluster is not reachable' },
    },
  });

describe('status writer', () => {
  it('folds events into status, ignores redeliveries, and a replay rebuilds the same status and events', async () => {
    const store = new ObjectStore(bus);
    for (const name of ['m1', 'm2', 'm3']) {
      await store.apply({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name }, spec: {} });
    }
    const events = [
      clusterReport('m1', true, 1),
      clusterReport('m2', true, 2),
      clusterReport('m1', false, 3),
      clusterReport('m1', true, 4),
      clusterReport('m3', true, 5),
      clusterReport('m1', true, 6),
    ];
    for (const e of events) await publishEvent(bus, e);
    await publishEvent(
      bus,
      cloudEvent({
        source: 'gateway',
        type: 'ObjectDeleted',
        kind: 'Cluster',
        name: 'm3',
        time: new Date(Date.UTC(2026, 0, 1, 0, 0, 7)),
        data: {},
      }),
    );

    const writer = new StatusWriter(new StatusStore(bus), new KubeEventStore(bus), defaultReducers());
    const delivered = [];
    for await (const d of readEvents(bus)) delivered.push(d);
    for (const d of delivered) await writer.handle(d);
    // a crash-and-redeliver of the whole log changes nothing
    for (const d of delivered) await writer.handle(d);

    const m1 = await store.mustGet({ kind: 'Cluster', name: 'm1' });
    expect(m1.status).toMatchObject({
      kubernetesVersion: 'v1.31.0',
      conditions: [
        { type: 'Ready', status: 'True', reason: 'ClusterReady', lastTransitionTime: '2026-01-01T00:00:04.000Z' },
      ],
    });
    expect((await store.get({ kind: 'Cluster', name: 'm3' }))?.status).toBeUndefined();
    const m1Events = await new KubeEventStore(bus).list({ kind: 'Cluster', name: 'm1' });
    expect(m1Events.map((e) => [e.reason, e.count])).toEqual([
      ['ClusterNotReady', 1],
      ['ClusterReady', 3],
    ]);

    const live = await new StatusStore(bus).all();
    const liveEvents = await new KubeEventStore(bus).all();
    const result = await rebuildStatus(bus, defaultReducers());
    expect(result.events).toBe(7);
    expect(await new StatusStore(bus).all()).toEqual(live);
    expect(await new KubeEventStore(bus).all()).toEqual(liveEvents);
  });
});

describe('status writer, the events of an object folded together', () => {
  it('writes one record for the events of an object waiting together, the record folding them one by one leaves', async () => {
    // The same log on two prefixes: folded one event at a time on one, each object's events at once on the other.
    const alone = await testBus('swa');
    const together = await testBus('swt');
    try {
      const events = [
        clusterReport('m1', true, 1),
        clusterReport('m2', true, 2),
        clusterReport('m1', false, 3),
        clusterReport('m1', true, 4),
        // changes nothing the one before did not: the record keeps the sequence of the one before
        clusterReport('m1', true, 4),
        clusterReport('m2', false, 5),
      ];
      const logs = [];
      for (const b of [alone, together]) {
        for (const e of events) await publishEvent(b, e);
        const delivered = [];
        for await (const d of readEvents(b)) delivered.push(d);
        logs.push(delivered);
      }
      const [logAlone, logTogether] = logs as [DeliveredEvent[], DeliveredEvent[]];
      const writerAlone = new StatusWriter(new StatusStore(alone), new KubeEventStore(alone), defaultReducers());
      for (const d of logAlone) await writerAlone.handle(d);

      let statusWrites = 0;
      const sub = together.nc.subscribe(`$KV.${together.names.statusBucket}.>`, {
        callback: () => {
          statusWrites++;
        },
      });
      const writerTogether = new StatusWriter(
        new StatusStore(together),
        new KubeEventStore(together),
        defaultReducers(),
      );
      const byObject = new Map<string, DeliveredEvent[]>();
      for (const d of logTogether)
        byObject.set(d.event.flotillaname, [...(byObject.get(d.event.flotillaname) ?? []), d]);
      for (const ds of byObject.values()) await writerTogether.handleMany(ds);
      // a redelivery of the whole batch changes nothing and writes nothing
      for (const ds of byObject.values()) await writerTogether.handleMany(ds);
      await together.nc.flush();
      sub.unsubscribe();

      expect(statusWrites).toBe(2);
      expect(await new StatusStore(together).all()).toEqual(await new StatusStore(alone).all());
      expect((await new StatusStore(together).all()).get('Cluster._.m1')?.seq).toBe(4);
      const kubeEvents = async (b: Bus) =>
        (await new KubeEventStore(b).list({ kind: 'Cluster', name: 'm1' })).map((e) => [e.reason, e.count]);
      expect(await kubeEvents(together)).toEqual(await kubeEvents(alone));
      // and a replay of the log rebuilds what the batches wrote
      const live = await new StatusStore(together).all();
      await rebuildStatus(together, defaultReducers());
      expect(await new StatusStore(together).all()).toEqual(live);
    } finally {
      await alone.dispose();
      await together.dispose();
    }
  });
});

describe('Kubernetes-style events of a binding', () => {
  const decision = (message: string, t: number) =>
    cloudEvent({
      source: 'affinity-scheduler',
      type: 'BindingScheduled',
      kind: 'ResourceBinding',
      namespace: 'default',
      name: 'web-deployment',
      time: new Date(Date.UTC(2026, 0, 1, 0, 1, t)),
      data: { kubeEvent: { type: 'Normal', reason: 'ScheduleBindingSucceed', message } },
    });

  it('keeps each decision: the same reason and message counts up, a different message is a new event', async () => {
    const writer = new StatusWriter(new StatusStore(bus), new KubeEventStore(bus), defaultReducers());
    const from = (await bus.jsm.streams.info(bus.names.eventsStream)).state.last_seq;
    for (const [message, t] of [
      ['placed on member1', 1],
      ['placed on member2', 2],
      ['placed on member2', 3],
    ] as const)
      await publishEvent(bus, decision(message, t));
    for await (const d of readEvents(bus, { fromSeq: from + 1 })) await writer.handle(d);

    const events = await new KubeEventStore(bus).list({ kind: 'ResourceBinding', name: 'web-deployment' });
    expect(events.map((e) => [e.reason, e.message, e.count])).toEqual([
      ['ScheduleBindingSucceed', 'placed on member1', 1],
      ['ScheduleBindingSucceed', 'placed on member2', 2],
    ]);
  });
});
