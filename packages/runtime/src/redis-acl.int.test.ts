import { freeTcpPort, PrivateRedis } from '@flotilla/testkit';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDelayedQueue, createWorker, scheduleAt } from './delayed-jobs.js';
import { LeaderElector } from './leader.js';
import { aclSetUserArgs, redisAclRules } from './redis-acl.js';
import { closeRedis, connectRedis, createRedis } from './redis.js';
import { isRedisCredentialsRefused } from './errors.js';
import { until } from './testing/redis.js';

const PREFIX = 'flotilla';
const rules = redisAclRules(PREFIX);
const ruleOf = (service: string) => {
  const rule = rules.find((r) => r.service === service);
  if (!rule) throw new Error(`no Redis ACL rule for ${service}`);
  return rule;
};

describe('Redis ACL users of the services (a Redis of its own)', () => {
  let server: PrivateRedis;
  let admin: Redis;
  const opened: Redis[] = [];
  const urlOf = (user: string) => `redis://${user}:pw-${user}@127.0.0.1:${server.port}`;
  const connectAs = (user: string) => {
    const r = createRedis(urlOf(user));
    opened.push(r);
    return r;
  };

  beforeAll(async () => {
    server = new PrivateRedis(await freeTcpPort());
    await server.start();
    admin = createRedis(server.url);
    for (const rule of rules) await admin.call('ACL', ...aclSetUserArgs(rule, `pw-${rule.user}`));
  });
  afterAll(async () => {
    await Promise.all(opened.map((r) => closeRedis(r)));
    if (admin) await closeRedis(admin);
    await server?.dispose();
  });

  it('tells refused credentials from a server out of reach, so that start-up does not retry them', async () => {
    const user = ruleOf('status-writer').user;
    const refused = await connectRedis(`redis://${user}:wrong@127.0.0.1:${server.port}`).catch((e: unknown) => e);
    expect(isRedisCredentialsRefused(refused)).toBe(true);
    const away = await connectRedis('redis://127.0.0.1:1', { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(isRedisCredentialsRefused(away)).toBe(false);
  });

  it('lets the status-writer acquire, renew and release its leader lease', async () => {
    const redis = connectAs(ruleOf('status-writer').user);
    const elector = new LeaderElector({ redis, key: `${PREFIX}:leader:status-writer`, leaseMs: 300 });
    await elector.start();
    expect(elector.isLeader()).toBe(true);
    const holder = await admin.get(`${PREFIX}:leader:status-writer`);
    expect(holder).toBe(elector.id);
    // Renewals run every leaseMs/3: past a whole lease the replica still leads only if they were allowed.
    await new Promise((r) => setTimeout(r, 450));
    expect(elector.isLeader()).toBe(true);
    expect(Number(await admin.pttl(`${PREFIX}:leader:status-writer`))).toBeGreaterThan(0);
    await elector.stop();
    expect(await admin.exists(`${PREFIX}:leader:status-writer`)).toBe(0);
  });

  it("runs the rebalancer's delayed BullMQ queue: a job added is processed", async () => {
    const rule = ruleOf('rebalancer');
    const queue = createDelayedQueue<{ n: number }>({
      name: 'rebalancer',
      prefix: PREFIX,
      connection: urlOf(rule.user),
    });
    const seen: number[] = [];
    const worker = createWorker<{ n: number }, void>({
      name: 'rebalancer',
      prefix: PREFIX,
      connection: urlOf(rule.user),
      handler: async (job) => {
        seen.push(job.data.n);
      },
    });
    const errors: unknown[] = [];
    worker.on('error', (err) => errors.push(err));
    try {
      const now = new Date();
      await scheduleAt(queue, 'once', new Date(now.getTime() + 100), { n: 7 }, now);
      await until(() => seen.length > 0, 'the delayed job to be processed');
      expect(seen).toEqual([7]);
      expect(errors).toEqual([]);
    } finally {
      await worker.close();
      await queue.close();
    }
  });

  it('refuses a service key outside its own: NOPERM', async () => {
    const redis = connectAs(ruleOf('rebalancer').user);
    await expect(redis.set(`${PREFIX}:leader:status-writer`, 'x')).rejects.toThrow(/NOPERM/);
    await expect(redis.get(`${PREFIX}:cron-scheduler:x`)).rejects.toThrow(/NOPERM/);
    await expect(redis.set('other:rebalancer:x', 'x')).rejects.toThrow(/NOPERM/);
    for (const command of ['FLUSHALL', 'FLUSHDB', 'KEYS *', 'CONFIG GET maxmemory', 'ACL LIST'])
      await expect(redis.call(...(command.split(' ') as [string, ...string[]])), command).rejects.toThrow(/NOPERM/);
    const leaseOnly = connectAs(ruleOf('status-writer').user);
    await expect(leaseOnly.call('FLUSHALL')).rejects.toThrow(/NOPERM/);
    expect(await admin.exists(`${PREFIX}:leader:status-writer`, 'other:rebalancer:x')).toBe(0);
  });
});
