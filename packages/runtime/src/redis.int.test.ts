import { describe, expect, it } from 'vitest';
import { closeRedis, createRedis } from './redis.js';
import { REDIS_URL } from './testing/redis.js';

describe('createRedis / closeRedis (real Redis)', () => {
  it('connects, and closeRedis quits politely', async () => {
    const redis = createRedis(REDIS_URL, { connectionName: 'flotilla-runtime-test' });
    expect(await redis.ping()).toBe('PONG');
    expect(await redis.client('GETNAME')).toBe('flotilla-runtime-test');
    await closeRedis(redis);
    expect(redis.status).toBe('end');
  });

  it('closeRedis does not hang on a server that is not there', async () => {
    // Port 1 on loopback refuses connections.
    const redis = createRedis('redis://127.0.0.1:1', { extra: { retryStrategy: () => 50 } });
    redis.on('error', () => undefined);
    await closeRedis(redis);
    expect(redis.status).toBe('end');
  });
});
