import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gzipBomb, testBus } from '@flotilla/bus/testing';
import { eventually, metricSum } from '@flotilla/testkit';
import {
  cloudEvent,
  type DeliveredEvent,
  MAX_DECODED_JSON_BYTES,
  publishEvent,
  subjectOf,
  type Bus,
} from '@flotilla/bus';
import { KubeEventStore, objectKey, StatusStore } from '@flotilla/store';
import { defaultReducers } from './default-reducers.js';
import { foldEvents, type FoldLogger } from './fold-events.js';
import { FoldLag } from './fold-lag.js';
import { StatusWriter } from './status-writer.js';

let bus: Bus & { dispose(): Promise<void> };
beforeAll(async () => {
  bus = await testBus('fold');
});
afterAll(async () => {
  await bus?.dispose();
});

const report = (name: string, t: number) =>
  cloudEvent({
    source: 'member-agent',
    type: 'ClusterStatusReported',
    kind: 'Cluster',
    name,
    time: new Date(Date.UTC(2026, 0, 1, 0, 0, t)),
    data: { statusPatch: { conditions: [{ type: 'Ready', status: 'True', reason: 'ClusterReady' }] } },
  });

function recordingLogger() {
  const lines: Array<{ level: string; msg: string; fields: Record<string, unknown> }> = [];
  const at = (level: string) => (fields: object, msg: string) =>
    void lines.push({ level, msg, fields: fields as Record<string, unknown> });
  const logger: FoldLogger = { warn: at('warn'), error: at('error') };
  return { logger, lines };
}

/** A JSON object `json` with twice MAX_DECODED_JSON_BYTES of spaces inside it, gzipped: some 130 kB. */
const bombOf = (json: object) =>
  gzipBomb({ prefix: '{"pad":0', padBytes: 2 * MAX_DECODED_JSON_BYTES, suffix: `,${JSON.stringify(json).slice(1)}` });

describe('foldEvents: what cannot be decoded', () => {
  it('sets a gzip bomb aside, logged once with where it was read, and goes on folding; a restart is not handed it again', async () => {
    const statuses = new StatusStore(bus);
    const folded = async (name: string) => (await statuses.get({ kind: 'Cluster', name }))?.value;

    await publishEvent(bus, report('m1', 1));
    // A hostile writer's event: the right subject and a CloudEvent inside, 128 MiB once expanded.
    const bombEvent = report('m2', 2);
    const bombed = await bus.js.publish(subjectOf(bus, bombEvent), await bombOf(bombEvent));
    // ... and a status record in the KV bucket, which the fold of m4's next event reads.
    const m4Key = objectKey({ kind: 'Cluster', name: 'm4' });
    const statusBomb = await bombOf({ seq: 0, status: {} });
    await bus.status.put(m4Key, statusBomb);
    const m4 = await publishEvent(bus, report('m4', 3));
    await publishEvent(bus, report('m3', 4));

    const registry = new Registry();
    const lag = new FoldLag(registry, bus, 'fold-test');
    const writer = new StatusWriter(statuses, new KubeEventStore(bus), defaultReducers(), lag);
    const { logger, lines } = recordingLogger();
    // One at a time in stream order: m3's status is written only once everything before it is settled.
    const start = () => foldEvents({ bus, writer, durable: 'fold-test', concurrency: 1, logger, lag });
    let sub = await start();
    try {
      await eventually(() => folded('m3'), 20_000, "m3's status, folded after both bombs");
      expect((await folded('m1'))?.status).toMatchObject({ conditions: [{ type: 'Ready', status: 'True' }] });
      expect(await folded('m2')).toBeUndefined();
      // m4's record is left as it is (a replay rebuilds it), not overwritten by a fold of one event.
      expect((await bus.status.get(m4Key))?.value.length).toBe(statusBomb.length);

      const setAside = lines.filter((l) => l.msg.includes('set aside'));
      expect(setAside.map((l) => ({ level: l.level, ...l.fields }))).toEqual([
        expect.objectContaining({
          level: 'error',
          seq: bombed.seq,
          subject: subjectOf(bus, bombEvent),
          source: `event ${subjectOf(bus, bombEvent)} at stream sequence ${bombed.seq}`,
          reason: 'too-large',
        }),
        expect.objectContaining({
          level: 'error',
          seq: m4.seq,
          source: `${bus.names.statusBucket} ${m4Key}`,
          reason: 'too-large',
        }),
      ]);
      expect(await metricSum(registry, 'flotilla_status_events_undecodable_total')).toBe(2);
      expect(await metricSum(registry, 'flotilla_status_events_folded_total')).toBe(2);

      // Terminated, so settled: the next leader starts after them and is not handed either again.
      await sub.stop();
      sub = await start();
      await publishEvent(bus, report('m5', 5));
      await eventually(() => folded('m5'), 20_000, "m5's status, folded by the next leader");
      expect(lines.filter((l) => l.msg.includes('set aside'))).toHaveLength(2);
      const info = await bus.jsm.consumers.info(bus.names.eventsStream, 'fold-test');
      expect(info.num_redelivered).toBe(0);
    } finally {
      await sub.stop();
    }
  });
});

describe('foldEvents: order across objects', () => {
  it("folds a binding's report after the cluster reports published before it, however long theirs takes", async () => {
    // The cluster's fold is slow: without the order, the binding's status (a different object, folded at once
    // beside it) would be stored first, and the scheduler would count its pods in the cluster nowhere for a moment.
    class SlowClusterFolds extends StatusWriter {
      override async handle(d: DeliveredEvent): Promise<void> {
        if (d.event.flotillakind === 'Cluster') await new Promise((r) => setTimeout(r, 300));
        return super.handle(d);
      }
      override async handleMany(ds: readonly DeliveredEvent[]): Promise<void> {
        if (ds.some((d) => d.event.flotillakind === 'Cluster')) await new Promise((r) => setTimeout(r, 300));
        return super.handleMany(ds);
      }
    }
    const statuses = new StatusStore(bus);
    const writer = new SlowClusterFolds(statuses, new KubeEventStore(bus), defaultReducers(), undefined);
    await publishEvent(bus, report('order-m1', 1));
    await publishEvent(
      bus,
      cloudEvent({
        source: 'member-agent',
        type: 'WorkloadStatusReported',
        kind: 'ResourceBinding',
        namespace: 'default',
        name: 'order-web',
        time: new Date(Date.UTC(2026, 0, 1, 0, 0, 2)),
        data: { clusterName: 'order-m1', applied: true, status: { replicas: 2, readyReplicas: 2 } },
      }),
    );
    const sub = await foldEvents({
      bus,
      writer,
      durable: 'fold-order',
      concurrency: 8,
      logger: recordingLogger().logger,
    });
    try {
      const revisionOf = async (key: string) => (await bus.status.get(key))?.revision;
      const clusterKey = objectKey({ kind: 'Cluster', name: 'order-m1' });
      const bindingKey = objectKey({ kind: 'ResourceBinding', namespace: 'default', name: 'order-web' });
      const [cluster, binding] = await eventually(
        async () => {
          const both = [await revisionOf(clusterKey), await revisionOf(bindingKey)];
          return both.every((r) => r !== undefined && r > 0) ? (both as number[]) : undefined;
        },
        20_000,
        'both folded',
      );
      expect(binding).toBeGreaterThan(cluster!);
    } finally {
      await sub.stop();
    }
  });
});
