import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBus } from '@flotilla/bus/testing';
import type { Bus } from '@flotilla/bus';
import { DEFAULT_METRICS_MAX_AGE_MS, ensureMetricsStream } from '@flotilla/bus';
import { JetStreamHistory, metricSubject } from './jetstream-history.js';

let bus: Bus & { dispose(): Promise<void> };
const web = { namespace: 'default', kind: 'Deployment', name: 'web.v2' };
const other = { namespace: 'default', kind: 'Deployment', name: 'other' };

beforeAll(async () => {
  bus = await testBus('metrics');
  await ensureMetricsStream(bus.jsm, bus, 15 * 24 * 3600 * 1000);
});
afterAll(async () => {
  await bus?.dispose();
});

describe('JetStreamHistory (real NATS)', () => {
  it('escapes the workload into one subject token each', () => {
    expect(metricSubject('p.metrics', web)).toBe('p.metrics.default.Deployment.web%2Ev2');
  });

  it("returns one workload's samples in the range, oldest first, each instant once", async () => {
    const h = new JetStreamHistory(bus);
    const t0 = Math.floor(Date.now() / 1000);
    for (let i = 0; i < 5; i++) await h.record(web, [t0 + 60 * i, i]);
    await h.record(web, [t0 + 120, 99]); // a repeated report of an instant is dropped
    await h.record(other, [t0, 42]);
    const all = await h.range(web, {
      start: new Date((t0 - 3600) * 1000),
      end: new Date((t0 + 3600) * 1000),
      stepSeconds: 60,
    });
    expect(all).toEqual([0, 1, 2, 3, 4].map((i) => [t0 + 60 * i, i]));
    const middle = await h.range(web, {
      start: new Date((t0 - 3600) * 1000),
      end: new Date((t0 + 120) * 1000),
      stepSeconds: 60,
    });
    expect(middle.map(([, v]) => v)).toEqual([0, 1, 2]);
    expect(await h.range({ ...web, name: 'none' }, { start: new Date(0), end: new Date(), stepSeconds: 60 })).toEqual(
      [],
    );
  });

  it('records many samples a bounded number at a time, every one kept, in order', async () => {
    const h = new JetStreamHistory(bus);
    const seeded = { namespace: 'default', kind: 'Deployment', name: 'seeded' };
    const t0 = Math.floor(Date.now() / 60_000) * 60 - 3 * 86_400;
    const samples = Array.from({ length: 3 * 1440 }, (_, i): [number, number] => [t0 + 60 * i, i % 7]);
    let inFlight = 0;
    let most = 0;
    const publish = bus.js.publish.bind(bus.js);
    const counting = async (...args: Parameters<typeof publish>) => {
      most = Math.max(most, ++inFlight);
      try {
        return await publish(...args);
      } finally {
        inFlight--;
      }
    };
    bus.js.publish = counting;
    try {
      await h.recordAll(seeded, samples, { inFlight: 16 });
    } finally {
      bus.js.publish = publish;
    }
    expect(most).toBe(16);
    const read = await h.range(seeded, { start: new Date(t0 * 1000), end: new Date(), stepSeconds: 60 });
    expect(read).toEqual(samples);
  });

  it("adds up the parts several sources (kube agents, one per cluster) recorded for an instant; drops a source's repeat", async () => {
    const h = new JetStreamHistory(bus);
    const split = { namespace: 'default', kind: 'Deployment', name: 'split' };
    const t0 = Math.floor(Date.now() / 1000);
    await h.record(split, [t0, 1.5], { source: 'member1' });
    await h.record(split, [t0, 0.25], { source: 'member2' });
    await h.record(split, [t0, 7], { source: 'member1' }); // a restarted member1 agent repeats the instant
    await h.record(split, [t0 + 60, 2], { source: 'member2' });
    await h.record(split, [t0 + 60, 0.1], { source: 'member1' });
    const samples = await h.range(split, {
      start: new Date((t0 - 60) * 1000),
      end: new Date((t0 + 120) * 1000),
      stepSeconds: 60,
    });
    expect(samples).toEqual([
      [t0, 1.75],
      [t0 + 60, 2.1],
    ]);
  });

  it('keeps the history across a new connection (a restarted service reads what was recorded)', async () => {
    const { connectBus } = await import('@flotilla/bus');
    const again = await connectBus({ url: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', prefix: bus.names.prefix });
    try {
      const samples = await new JetStreamHistory(again).range(web, {
        start: new Date(0),
        end: new Date(Date.now() + 3600_000 * 10),
        stepSeconds: 60,
      });
      expect(samples).toHaveLength(5);
    } finally {
      await again.close();
    }
  });

  it('raises the retention of an existing stream to the longest history in use, and never lowers it', async () => {
    const days = (n: number) => n * 24 * 3600 * 1000;
    // Made with the other streams at connect, with its default max age, which 3 days does not lower.
    await ensureMetricsStream(bus.jsm, bus, days(3));
    expect((await bus.jsm.streams.info(bus.names.metricsStream)).config.max_age).toBe(
      DEFAULT_METRICS_MAX_AGE_MS * 1_000_000,
    );
    await ensureMetricsStream(bus.jsm, bus, days(20));
    expect((await bus.jsm.streams.info(bus.names.metricsStream)).config.max_age).toBe(days(20) * 1_000_000);
  });
});
