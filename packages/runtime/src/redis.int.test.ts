import { describe, expect, it } from 'vitest';
import { closeRedis, connectRedis, createRedis } from './redis.js';
import { RedisUnavailableError } from './errors.js';
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

  it('connectRedis proves the connection, and fails fast naming the server without its password', async () => {
    const ok = await connectRedis(REDIS_URL);
    expect(await ok.ping()).toBe('PONG');
    await closeRedis(ok);
    const err = await connectRedis('redis://:hunter2@127.0.0.1:1', { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedisUnavailableError);
    expect((err as Error).message).toMatch(/cannot reach Redis at redis:\/\/.*127\.0\.0\.1:1/);
    expect((err as Error).message).not.toMatch(/hunter2/);
  });
});
