import { describe, expect, it } from 'vitest';
import { createRedis, describeRedis, redisSentinelFromEnv } from './redis.js';

const sentinels = [
  { host: '10.0.0.1', port: 26379 },
  { host: 'sentinel-2', port: 26380 },
];

describe('Redis through Sentinel', () => {
  it('is off without REDIS_SENTINELS, and named by its Sentinels and primary name otherwise', () => {
    expect(redisSentinelFromEnv({ REDIS_SENTINEL_NAME: 'mymaster' })).toBeUndefined();
    const sentinel = redisSentinelFromEnv({ REDIS_SENTINELS: sentinels, REDIS_SENTINEL_NAME: 'flotilla' });
    expect(sentinel).toEqual({ sentinels, name: 'flotilla', password: undefined });
    expect(describeRedis('redis://:pw@ignored:6379', sentinel)).toBe(
      'sentinel flotilla at 10.0.0.1:26379,sentinel-2:26380',
    );
    expect(describeRedis('redis://:pw@redis:6379')).toBe('redis://***@redis:6379');
  });

  it('asks the Sentinels for the primary, with the URL giving only password and database', () => {
    const redis = createRedis('redis://:s3cret@ignored:6379/2', {
      sentinel: { sentinels, name: 'flotilla', password: 'sp' },
      connectionName: 'test',
      forBullmq: true,
      extra: { lazyConnect: true },
    });
    try {
      expect(redis.options).toMatchObject({
        sentinels,
        name: 'flotilla',
        sentinelPassword: 'sp',
        password: 's3cret',
        db: 2,
        connectionName: 'test',
        maxRetriesPerRequest: null,
      });
      // BullMQ's connections are duplicates: they keep the Sentinels.
      const dup = redis.duplicate();
      expect(dup.options).toMatchObject({ sentinels, name: 'flotilla' });
      dup.disconnect();
    } finally {
      redis.disconnect();
    }
  });
});
