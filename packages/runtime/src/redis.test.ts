import { describe, expect, it } from 'vitest';
import { closeRedis, createRedis } from './redis.js';

// lazyConnect: these check options only and never open a connection.
const lazy = { extra: { lazyConnect: true } };

describe('createRedis', () => {
  it.each([
    ['no password anywhere', 'redis://127.0.0.1:6379', undefined, undefined],
    ['password from the option', 'redis://127.0.0.1:6379', 'opt-pw', 'opt-pw'],
    ['an empty option is no password', 'redis://127.0.0.1:6379', '', undefined],
    ['the URL password wins', 'redis://:url-pw@127.0.0.1:6379', 'opt-pw', 'url-pw'],
  ])('%s', async (_label, url, password, expected) => {
    const redis = createRedis(url, { password, ...lazy });
    expect(redis.options.password ?? undefined).toBe(expected);
    await closeRedis(redis);
  });

  it('sets maxRetriesPerRequest to null for BullMQ only', async () => {
    const plain = createRedis('redis://127.0.0.1:6379', lazy);
    const bull = createRedis('redis://127.0.0.1:6379', { forBullmq: true, ...lazy });
    expect(plain.options.maxRetriesPerRequest).not.toBeNull();
    expect(bull.options.maxRetriesPerRequest).toBeNull();
    await closeRedis(plain);
    await closeRedis(bull);
  });

  it('closeRedis ends a connection that never connected, and is idempotent', async () => {
    const redis = createRedis('redis://127.0.0.1:6379', { connectionName: 'flotilla-test', ...lazy });
    expect(redis.options.connectionName).toBe('flotilla-test');
    await closeRedis(redis);
    await closeRedis(redis);
    expect(redis.status).toBe('end');
  });
});
