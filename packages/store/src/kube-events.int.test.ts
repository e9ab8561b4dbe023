// KubeEventStore.record against real NATS: a new event is created without a read (its key is the message's digest,
// so almost every event is new), a repeat is counted, and a redelivered occurrence changes nothing.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Bus } from '@flotilla/bus';
import { testBus } from '@flotilla/bus/testing';
import { KubeEventStore } from './kube-events.js';

let bus: Bus & { dispose(): Promise<void> };
beforeAll(async () => {
  bus = await testBus('kube-events');
});
afterAll(async () => {
  await bus?.dispose();
});

const ref = { kind: 'ResourceBinding', namespace: 'default', name: 'web-deployment' };
const scheduled = (time: string) => ({
  type: 'Normal' as const,
  reason: 'ScheduleBindingSucceed',
  message: 'Binding has been scheduled successfully.',
  component: 'affinity-scheduler',
  time: new Date(time),
});

describe('KubeEventStore.record', () => {
  it('creates a new event without reading, counts a repeat, and ignores a redelivery', async () => {
    const events = new KubeEventStore(bus);
    const reads = vi.spyOn(bus.kubeEvents, 'get');
    try {
      const first = await events.record(ref, scheduled('2026-12-06T00:00:00Z'), 10);
      expect(first.count).toBe(1);
      expect(reads).not.toHaveBeenCalled();
      const again = await events.record(ref, scheduled('2026-12-06T00:01:00Z'), 11);
      expect(again).toMatchObject({ count: 2, firstTimestamp: '2026-12-06T00:00:00.000Z' });
      expect(await events.record(ref, scheduled('2026-12-06T00:01:00Z'), 11)).toMatchObject({ count: 2 });
    } finally {
      reads.mockRestore();
    }
    expect((await events.list({ kind: 'ResourceBinding' })).map((e) => [e.reason, e.count])).toEqual([
      ['ScheduleBindingSucceed', 2],
    ]);
  });
});
