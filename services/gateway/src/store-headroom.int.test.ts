import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Bus, connectBus, destroyBus, publishEvent } from '@flotilla/bus';
import { type ApiError, ForbiddenError, GatewayClient } from '@flotilla/client';
import { KubeEventStore, ObjectStore } from '@flotilla/store';
import { freeTcpPort, PrivateNats } from '@flotilla/testkit';
import { GatewayHandler } from './handler.js';
import { serveNatsApi } from './nats-api.js';
import { jetStreamStorageUse, StoreHeadroom } from './store-headroom.js';

let nats: PrivateNats;
let bus: Bus;
let client: GatewayClient;
let stop: () => Promise<void>;

beforeAll(async () => {
  // A JetStream account of 1 MiB: account limits are what JetStream reports to a client (max_storage).
  nats = new PrivateNats(await freeTcpPort(), {
    config:
      'accounts { FLOTILLA: { jetstream: { max_store: 1MB, max_mem: 64MB }, users: [{ user: gw, password: pw }] } }',
  });
  await nats.start();
  bus = await connectBus({
    url: `nats://gw:pw@127.0.0.1:${nats.port}`,
    prefix: 'full',
    retention: { maxBytes: 64 * 1024 },
  });
  const headroom = new StoreHeadroom(jetStreamStorageUse(bus.jsm), 5, 0);
  const handler = new GatewayHandler({
    store: new ObjectStore(bus),
    kubeEvents: new KubeEventStore(bus),
    publish: (e) => publishEvent(bus, e),
    ensureRoom: () => headroom.ensureRoom(),
  });
  stop = serveNatsApi(bus, handler, { error: () => undefined }).stop;
  client = new GatewayClient(bus.nc, { apiRoot: bus.names.apiRoot });
}, 30_000);
afterAll(async () => {
  await stop?.();
  if (bus) await destroyBus(bus).then(() => bus.close());
  await nats?.dispose();
});

const configMap = (i: number) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: `blob-${i}`, namespace: 'default' },
  data: { blob: 'x'.repeat(20_000) },
});

describe('a full JetStream store', () => {
  it('refuses applies before it is full, naming JetStream storage, and deletes still go through and free room', async () => {
    const stored: number[] = [];
    let refusal: unknown;
    for (let i = 0; i < 80 && refusal === undefined; i++) {
      await client.apply(configMap(i)).then(
        () => stored.push(i),
        (err: unknown) => {
          refusal = err;
        },
      );
    }
    expect(refusal).toBeInstanceOf(ForbiddenError);
    expect((refusal as ApiError).message).toMatch(/^JetStream storage is 9\d% full/);
    expect((refusal as ApiError).message).toMatch(/Delete objects/);
    expect(stored.length).toBeGreaterThan(30);
    // An update is refused as well: it writes a new revision.
    await expect(client.apply({ ...configMap(0), data: { blob: 'y' } })).rejects.toBeInstanceOf(ForbiddenError);

    for (const i of stored.slice(0, 10)) await client.delete('ConfigMap', `blob-${i}`);
    expect((await client.list('ConfigMap')).items).toHaveLength(stored.length - 10);
    expect((await client.apply(configMap(1000))).outcome).toBe('created');
  });
});
