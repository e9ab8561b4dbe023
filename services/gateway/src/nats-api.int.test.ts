import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bus } from '@flotilla/bus';
import { testBus } from '@flotilla/bus/testing';
import { eventually } from '@flotilla/testkit';
import type { Caller, GatewayHandler } from './handler.js';
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
        .request(`${bus.names.apiRoot}.cli.get`, JSON.stringify({ kind: 'ConfigMap', name: 'big' }), { timeout: 3_000 })
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

  describe('callers by name, each with its role', () => {
    /** A gateway whose handler records who asked; `get` and `delete` are all it serves. */
    function serving() {
      const callers: Array<Caller | undefined> = [];
      const handler: Partial<GatewayHandler> = {
        get: async (_q: unknown, caller?: Caller) => {
          callers.push(caller);
          return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
        },
        delete: async (_q: unknown, caller?: Caller) => {
          callers.push(caller);
          return { deleted: true } as never;
        },
      } as Partial<GatewayHandler>;
      const api = serveNatsApi(bus, handler as GatewayHandler, { error: () => undefined });
      return { api, callers };
    }
    const ask = async (caller: string, op: string) =>
      (
        await bus.nc.request(`${bus.names.apiRoot}.${caller}.${op}`, JSON.stringify({ kind: 'ConfigMap', name: 'c' }), {
          timeout: 3_000,
        })
      ).json<{ ok: boolean; error?: { reason: string; message: string } }>();

    it('lets the read-only caller read, refuses it a write, and hands the handler its name', async () => {
      const { api, callers } = serving();
      try {
        expect((await ask('cli-read', 'get')).ok).toBe(true);
        const refused = await ask('cli-read', 'delete');
        expect(refused.error?.reason).toBe('Forbidden');
        expect(refused.error?.message).toMatch(/"cli-read" has the read role, which may not delete/);
        expect((await ask('cli', 'delete')).ok).toBe(true);
        expect(callers).toEqual([
          { via: 'nats', name: 'cli-read' },
          { via: 'nats', name: 'cli' },
        ]);
      } finally {
        await api.stop();
      }
    });

    it('refuses a caller the catalogue does not know, naming the known ones', async () => {
      const { api, callers } = serving();
      try {
        const refused = await ask('mallory', 'get');
        expect(refused.error?.reason).toBe('Unauthorized');
        expect(refused.error?.message).toMatch(/unknown API caller "mallory": one of cli, cli-read, kube-bridge/);
        expect(callers).toEqual([]);
      } finally {
        await api.stop();
      }
    });
  });
});
