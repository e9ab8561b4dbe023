import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { testBus } from '@flotilla/bus/testing';
import { eventually } from '@flotilla/testkit';
import { cloudEvent, consumeEvents, publishEvent, type Bus } from '@flotilla/bus';
import { KubeEventStore, StatusStore } from '@flotilla/store';
import { defaultReducers } from './default-reducers.js';
import { FoldLag } from './fold-lag.js';
import { StatusWriter } from './status-writer.js';

let bus: Bus & { dispose(): Promise<void> };
beforeAll(async () => {
  bus = await testBus('lag');
});
afterAll(async () => {
  await bus?.dispose();
});

const T0 = Date.UTC(2026, 0, 1);
const report = (i: number) =>
  cloudEvent({
    source: 'member-agent',
    type: 'ClusterStatusReported',
    kind: 'Cluster',
    name: `m${i}`,
    time: new Date(T0 + i * 1000),
    data: { statusPatch: { conditions: [{ type: 'Ready', status: 'True', reason: 'ClusterReady' }] } },
  });

describe('FoldLag (real JetStream)', () => {
  it('reports the events the writer has not folded and how long the oldest has waited, 0 once caught up', async () => {
    const registry = new Registry();
    let clock = T0;
    const lag = new FoldLag(registry, bus, 'lag-test', () => clock);
    const read = async (name: string) => (await registry.getSingleMetric(name)!.get()).values[0]?.value;
    // no consumer yet (no leader has run): unknown rather than a made-up 0
    expect(await read('flotilla_status_fold_lag_events')).toBeNaN();
    expect(await read('flotilla_status_fold_lag_seconds')).toBeNaN();

    for (let i = 1; i <= 5; i++) await publishEvent(bus, report(i));
    // The writer is held inside the second event: it is delivered but not acknowledged, so it is the oldest event
    // not folded (the first after the acknowledgement floor) and the lag is measured from when it was stored. (The
    // third was stored a moment later: only a few ms on an idle machine, tens under load.)
    const second = (await bus.jsm.streams.getMessage(bus.names.eventsStream, { seq: 2 }))!.time.getTime();
    const writer = new StatusWriter(new StatusStore(bus), new KubeEventStore(bus), defaultReducers(), lag);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let handled = 0;
    const sub = await consumeEvents(bus, {
      durable: 'lag-test',
      handler: async (d) => {
        await writer.handle(d);
        if (++handled === 2) await gate;
      },
    });
    try {
      await eventually(() => (handled === 2 ? true : undefined), 10_000, 'two events folded');
      clock = second + 30_000; // also past the consumer-info cache
      expect(await read('flotilla_status_fold_lag_events')).toBe(4); // the held one is delivered, not acknowledged
      expect(await read('flotilla_status_fold_lag_seconds')).toBeCloseTo(30, 2);
      release();
      await eventually(
        async () => {
          clock += 2000;
          return (await read('flotilla_status_fold_lag_events')) === 0 ? true : undefined;
        },
        10_000,
        'the writer catching up',
      );
      expect(await read('flotilla_status_fold_lag_seconds')).toBe(0);
      expect(await read('flotilla_status_events_folded_total')).toBe(5);
    } finally {
      release();
      await sub.stop();
    }
  });
});
