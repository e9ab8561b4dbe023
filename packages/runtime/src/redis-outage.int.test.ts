import { eventually, freeTcpPort, PrivateRedis } from '@flotilla/testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ConnectionListener } from './connection-gate.js';
import { closeRedis, connectRedis } from './redis.js';

let redis: PrivateRedis;
beforeAll(async () => {
  redis = new PrivateRedis(await freeTcpPort());
  await redis.start();
});
afterAll(async () => {
  await redis?.dispose();
});

describe('a Redis outage (a real redis-server killed and restarted)', () => {
  it('is reported once down and once up, and ioredis prints no "Unhandled error event"', async () => {
    const events: string[] = [];
    const listener: ConnectionListener = {
      down: ({ server }) => events.push(`down ${server}`),
      up: ({ server }) => events.push(`up ${server}`),
    };
    const stderr = vi.spyOn(console, 'error');
    const conn = await connectRedis(redis.url, { onConnection: listener, extra: { retryStrategy: () => 100 } });
    try {
      let reconnects = 0;
      conn.on('reconnecting', () => reconnects++);
      await redis.stop('SIGKILL');
      // Several failed reconnects; each would print a line without a listener.
      await eventually(() => (reconnects >= 5 ? true : undefined), 10_000, 'five failed reconnects');
      await redis.start();
      // Reconnected (the retry strategy tries every 100 ms); the `up` report comes with the connection's `ready`.
      await eventually(
        () => (conn.status === 'ready' && events.length === 2 ? true : undefined),
        10_000,
        'reconnected',
      );
      expect(await conn.ping()).toBe('PONG');
      expect(events).toEqual([`down ${redis.url}`, `up ${redis.url}`]);
      expect(stderr.mock.calls.flat().join(' ')).not.toMatch(/Unhandled error event/);
    } finally {
      stderr.mockRestore();
      await closeRedis(conn);
    }
    // Closing on purpose is not an outage.
    expect(events).toHaveLength(2);
  });
});
