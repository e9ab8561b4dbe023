// What one apply reads, counted against real NATS: the object once (no status, which admission does not judge), and
// that read is the compare-and-set's starting point, not read again before the write.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { publishEvent, type Bus } from '@flotilla/bus';
import { testBus } from '@flotilla/bus/testing';
import { Informers, KubeEventStore, ObjectStore, replicaWriterSpecs } from '@flotilla/store';
import { Registry } from 'prom-client';
import { GatewayHandler } from './handler.js';

let bus: Bus & { dispose(): Promise<void> };
let handler: GatewayHandler;
const specs: Array<{ stop(): void }> = [];

beforeAll(async () => {
  bus = await testBus('gw-apply-reads');
  const store = new ObjectStore(bus);
  // As main.ts wires it: the conflict checks and the reserved-namespace check read informers, not the store.
  const writers = replicaWriterSpecs({ bus, informers: new Informers({ bus }), store, registry: new Registry() });
  await writers.start();
  specs.push(writers);
  handler = new GatewayHandler({
    store,
    specs: writers,
    policies: writers,
    kubeEvents: new KubeEventStore(bus),
    publish: (e) => publishEvent(bus, e),
  });
});
afterAll(async () => {
  for (const s of specs) s.stop();
  await bus?.dispose();
});

const deployment = (replicas: number) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default' },
  spec: {
    replicas,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
  },
});

describe('an apply reads the object once', () => {
  // A changed object's reply carries its status (as kubectl shows it), read once after the write; a new one has none.
  it.each([
    ['creating it', 2, 'created', 0],
    ['changing it', 3, 'configured', 1],
  ])('%s: one get of the object', async (_what, replicas, outcome, statusGets) => {
    const objectReads = vi.spyOn(bus.objects, 'get');
    const statusReads = vi.spyOn(bus.status, 'get');
    try {
      const reply = await handler.apply({ object: deployment(replicas) });
      expect(reply.outcome).toBe(outcome);
      expect(objectReads).toHaveBeenCalledTimes(1);
      expect(statusReads).toHaveBeenCalledTimes(statusGets);
    } finally {
      objectReads.mockRestore();
      statusReads.mockRestore();
    }
  });
});
