import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createServer, connect as connectTcp, type Server, type Socket } from 'node:net';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ConflictError, ServiceUnavailableError, TimeoutError } from './api-error.js';
import { backoffMs, GATEWAY_CLIENT_DEFAULTS, GatewayClient } from './gateway-client.js';
import type { ApiReply } from './protocol.js';

// The client package sits below testkit, so it names the test server and its prefixes itself.
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const uniquePrefix = (label: string) => `t-${label}-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;

describe('backoffMs (full jitter over a doubling step, never under the retry hint)', () => {
  const o = { attempts: 5, baseDelayMs: 100, maxDelayMs: 1000 };
  it.each([
    // attempt, random, retryAfterSeconds, wait
    [1, 1, undefined, 100],
    [2, 1, undefined, 200],
    [3, 0.5, undefined, 200],
    [4, 1, undefined, 800],
    [5, 1, undefined, 1000], // capped
    [9, 1, undefined, 1000],
    [1, 0, undefined, 0],
    [1, 0.5, 1, 1000], // the gateway's hint wins
    [5, 1, 2, 2000],
  ])('retry %d with random %d and hint %s waits %d ms', (attempt, random, hint, wait) => {
    expect(backoffMs(o, attempt, hint, () => random)).toBe(wait);
  });
});

// The gateway's side of the protocol, answered by a plain NATS responder: what a client does with each answer.
describe('GatewayClient retries', () => {
  let nc: NatsConnection;
  let apiRoot: string;
  beforeAll(async () => {
    nc = await connect({ servers: NATS_URL.replace(/^nats:\/\//, '') });
  });
  afterAll(async () => {
    await nc?.close();
  });

  /** Answers the n-th request with `answers[n]` (the last one from then on); returns the requests counted. */
  function gatewayAnswering(answers: Array<ApiReply<unknown>>): { count: number } {
    apiRoot = `${uniquePrefix('gateway-client')}.api`;
    const seen = { count: 0 };
    nc.subscribe(`${apiRoot}.cli.get`, {
      callback: (_err, msg) => {
        const answer = answers[Math.min(seen.count++, answers.length - 1)]!;
        msg.respond(JSON.stringify(answer));
      },
    });
    return seen;
  }
  const waits: number[] = [];
  const client = (attempts = GATEWAY_CLIENT_DEFAULTS.retry.attempts) =>
    new GatewayClient(nc, {
      apiRoot,
      retry: { attempts },
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
  const timeout: ApiReply<unknown> = {
    ok: false,
    error: { reason: 'Timeout', message: 'the store did not answer in time', retryAfterSeconds: 1 },
  };

  it('asks again after Timeout and ServiceUnavailable, waiting at least the hint, and returns the answer', async () => {
    waits.length = 0;
    const seen = gatewayAnswering([
      timeout,
      { ok: false, error: { reason: 'ServiceUnavailable', message: 'no store' } },
      { ok: true, result: { object: { kind: 'Deployment' } } },
    ]);
    await expect(client().get('Deployment', 'web', 'default')).resolves.toEqual({ object: { kind: 'Deployment' } });
    expect(seen.count).toBe(3);
    expect(waits[0]).toBeGreaterThanOrEqual(1000);
    expect(waits).toHaveLength(2);
  });

  it('gives up after its attempts with the last answer, typed', async () => {
    waits.length = 0;
    const seen = gatewayAnswering([timeout]);
    const err = await client(3)
      .get('Deployment', 'web', 'default')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as TimeoutError).retryAfterSeconds).toBe(1);
    expect(seen.count).toBe(3);
  });

  it('never asks again after an answer that is final', async () => {
    const seen = gatewayAnswering([{ ok: false, error: { reason: 'Conflict', message: 'stale' } }]);
    await expect(client().get('Deployment', 'web', 'default')).rejects.toBeInstanceOf(ConflictError);
    expect(seen.count).toBe(1);
  });

  it('asks again while no gateway answers at all, then says the suite is not running', async () => {
    waits.length = 0;
    apiRoot = `${uniquePrefix('gateway-client-none')}.api`;
    const err = await client(3)
      .get('Deployment', 'web', 'default')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect((err as Error).message).toMatch(/not running/);
    expect(waits).toHaveLength(2);
  });

  it('refuses attempts below one', () => {
    expect(() => new GatewayClient(nc, { apiRoot: 'x', retry: { attempts: 0 } })).toThrow(/retry.attempts/);
  });
});

/**
 * A TCP relay to the test's NATS whose connections can be cut, as kill -9 of the NATS node a client is on cuts them
 * (the client then reconnects through the relay).
 */
async function cuttableRelay(): Promise<{ url: string; cut(): void; close(): Promise<void> }> {
  const { hostname, port } = new URL(NATS_URL);
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connectTcp(Number(port), hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const cut = () => {
    for (const s of sockets) s.destroy();
  };
  return {
    url: `127.0.0.1:${(server.address() as { port: number }).port}`,
    cut,
    close: () => {
      cut();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

describe('GatewayClient when its connection drops during a call', () => {
  it('fails the call at once, as one that may have acted, and the next call goes through the new connection', async () => {
    const relay = await cuttableRelay();
    const gateway = await connect({ servers: NATS_URL.replace(/^nats:\/\//, '') });
    const nc = await connect({ servers: relay.url, reconnectTimeWait: 50, maxReconnectAttempts: -1 });
    try {
      const apiRoot = `${uniquePrefix('gateway-client-drop')}.api`;
      let answer = false;
      // A gateway that holds the first request (its answer would be lost with the server) and answers the next.
      gateway.subscribe(`${apiRoot}.cli.get`, {
        callback: (_err, msg) => {
          if (answer) msg.respond(JSON.stringify({ ok: true, result: { object: { kind: 'Deployment' } } }));
          answer = true;
        },
      });
      await gateway.flush();
      const client = new GatewayClient(nc, { apiRoot, timeoutMs: 60_000, retry: { attempts: 1 } });
      const started = Date.now();
      const call = client.get('Deployment', 'web', 'default').catch((e: unknown) => e);
      await vi.waitFor(() => expect(answer).toBe(true), { timeout: 10_000, interval: 20 });
      relay.cut();
      const err = await call;
      expect(err).toBeInstanceOf(ServiceUnavailableError);
      expect((err as Error).message).toMatch(/dropped while the call was in flight, which may have acted/);
      // Answered by the drop, not by the 60 s timeout.
      expect(Date.now() - started).toBeLessThan(30_000);
      await expect(client.get('Deployment', 'web', 'default')).resolves.toEqual({ object: { kind: 'Deployment' } });
    } finally {
      await nc.close();
      await gateway.close();
      await relay.close();
    }
  });
});
