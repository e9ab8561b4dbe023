import { afterAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { startLeaderWork } from './leader-work.js';
import { createRedis } from './redis.js';
import { deleteKeys, REDIS_URL, uniquePrefix, until } from './testing/redis.js';

const prefix = uniquePrefix('lw');
afterAll(async () => {
  const redis = createRedis(REDIS_URL);
  await deleteKeys(redis, prefix);
  redis.disconnect();
});

describe('startLeaderWork (real Redis)', () => {
  it('runs the work in one replica only, and hands it over when that replica stops', async () => {
    const running = new Set<string>();
    const log: string[] = [];
    const registries = { a: new Registry(), b: new Registry() };
    const leader = async (name: 'a' | 'b') =>
      (await registries[name].getSingleMetric('flotilla_leader')!.get()).values[0]?.value;
    const replica = (name: 'a' | 'b') =>
      startLeaderWork({
        registry: registries[name],
        redisUrl: REDIS_URL,
        key: `${prefix}:leader:svc`,
        leaseMs: 1000,
        logger: pino({ level: 'silent' }),
        work: async () => {
          running.add(name);
          log.push(`start ${name}`);
          return async () => {
            running.delete(name);
            log.push(`stop ${name}`);
          };
        },
      });
    const stopA = await replica('a');
    const stopB = await replica('b');
    await until(() => running.size === 1, 'one replica working');
    const first = [...running][0]! as 'a' | 'b';
    const other = first === 'a' ? 'b' : 'a';
    expect([await leader(first), await leader(other)]).toEqual([1, 0]);
    const [stopFirst, stopOther] = first === 'a' ? [stopA, stopB] : [stopB, stopA];
    await stopFirst();
    await until(() => running.size === 1 && !running.has(first), 'the other replica taking over');
    await until(async () => (await leader(other)) === 1, 'the new leader reporting flotilla_leader 1');
    expect(await leader(first)).toBe(0);
    expect(log).toEqual([`start ${first}`, `stop ${first}`, `start ${first === 'a' ? 'b' : 'a'}`]);
    await stopOther();
    expect(running.size).toBe(0);
  });

  it('fails fast when Redis is unreachable', async () => {
    await expect(
      startLeaderWork({
        redisUrl: 'redis://127.0.0.1:1',
        key: `${prefix}:x`,
        leaseMs: 1000,
        logger: pino({ level: 'silent' }),
        work: async () => async () => undefined,
      }),
    ).rejects.toThrow(/cannot reach Redis/);
  });
});
