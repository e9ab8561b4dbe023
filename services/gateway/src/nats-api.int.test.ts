import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bus } from '@flotilla/bus';
import { testBus } from '@flotilla/bus/testing';
import { eventually } from '@flotilla/testkit';
import type { GatewayHandler } from './handler.js';
import { serveNatsApi } from './nats-api.js';

let bus: Bus & { dispose(): Promise<void> };

beforeAll(async () => {
  bus = await testBus('gw-nats-api');
});
afterAll(async () => {
  await bus?.dispose();
});

describe('serveNatsApi', () => {
  it('logs a reply it could not send (larger than the server takes, even gzipped)', async () => {
    const maxPayload = bus.nc.info?.max_payload ?? 1024 * 1024;
    // Random bytes do not compress: the gzipped reply is still about twice the server's limit.
    const blob = randomBytes(maxPayload * 2).toString('base64');
    // Only the operation asked for is there.
    const handler: Partial<GatewayHandler> = {
      get: async () => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { blob } }),
    };
    const logged: Array<{ obj: Record<string, unknown>; msg: string }> = [];
    const api = serveNatsApi(bus, handler as GatewayHandler, {
      error: (obj, msg) => void logged.push({ obj: { ...obj }, msg }),
    });
    try {
      const asked = bus.nc
        .request(`${bus.names.apiRoot}.get`, JSON.stringify({ kind: 'ConfigMap', name: 'big' }), { timeout: 3_000 })
        .then(
          () => 'answered',
          () => 'no answer',
        );
      const entry = await eventually(
        () => logged.find((l) => l.msg === 'could not send the reply'),
        5_000,
        'the failed reply logged',
      );
      expect(entry.obj.op).toBe('get');
      expect(String(entry.obj.err)).toMatch(/max_payload/);
      // The caller is not answered: it times out and may ask again.
      expect(await asked).toBe('no answer');
    } finally {
      await api.stop();
    }
  });
});
