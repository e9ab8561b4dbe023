import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDelayedQueue,
  createWorker,
  encodeJobId,
  removeJob,
  scheduleAt,
  type DelayedQueue,
  type JobTiming,
} from './delayed-jobs.js';
import { InvalidJobIdError } from './errors.js';
import { closeRedis, createRedis } from './redis.js';
import { deleteKeys, REDIS_URL, uniquePrefix, until } from './testing/redis.js';

interface Fire {
  rule: string;
}

describe('delayed jobs (real Redis)', () => {
  const prefix = uniquePrefix('jobs');
  let redis: Redis;
  const queues: DelayedQueue<Fire>[] = [];
  let n = 0;

  beforeAll(async () => {
    redis = createRedis(REDIS_URL);
    await redis.ping();
  });
  afterAll(async () => {
    await Promise.all(queues.map((q) => q.close()));
    await deleteKeys(redis, prefix);
    await closeRedis(redis);
  });

  function queue(connection: Redis | string = redis): DelayedQueue<Fire> {
    const q = createDelayedQueue<Fire>({ name: `q${n++}`, prefix, connection });
    queues.push(q);
    return q;
  }

  it('the same job id scheduled twice is added once', async () => {
    const q = queue();
    const now = new Date();
    const at = new Date(now.getTime() + 60_000);
    const id = encodeJobId('default', 'peak', at.toISOString());
    expect(await scheduleAt(q, id, at, { rule: 'peak' }, now)).toBe(id);
    expect(await scheduleAt(q, id, at, { rule: 'peak-again' }, now)).toBe(id);
    expect(await q.getDelayedCount()).toBe(1);
    const job = await q.getJob(id);
    expect(job?.data).toEqual({ rule: 'peak' });
    // Its due time is exactly `at`.
    expect(job && job.timestamp + (job.opts.delay ?? 0)).toBe(at.getTime());
    // A different time is a different job.
    const later = new Date(at.getTime() + 60_000);
    await scheduleAt(q, encodeJobId('default', 'peak', later.toISOString()), later, { rule: 'peak' }, now);
    expect(await q.getDelayedCount()).toBe(2);
  });

  it('removeJob removes a scheduled job, and reports when there was none', async () => {
    const q = queue();
    const now = new Date();
    await scheduleAt(q, 'to-remove', new Date(now.getTime() + 60_000), { rule: 'x' }, now);
    expect(await removeJob(q, 'to-remove')).toBe(true);
    expect(await removeJob(q, 'to-remove')).toBe(false);
    expect(await q.getDelayedCount()).toBe(0);
  });

  it('refuses job ids BullMQ would misread, naming the field', async () => {
    const q = queue();
    const now = new Date();
    await expect(scheduleAt(q, 'a:b:c', now, { rule: 'x' }, now)).rejects.toThrow(InvalidJobIdError);
    await expect(scheduleAt(q, '12', now, { rule: 'x' }, now)).rejects.toThrow(
      'jobId: must not be an integer, got "12"',
    );
    await expect(scheduleAt(q, 'ok', new Date(Number.NaN), { rule: 'x' }, now)).rejects.toThrow(/invalid due time/);
    await expect(removeJob(q, 'a:b')).rejects.toThrow(InvalidJobIdError);
    expect(() => createDelayedQueue({ name: 'a:b', prefix, connection: redis })).toThrow(
      `name: must not contain ':', got "a:b"`,
    );
    expect(() => createDelayedQueue({ name: 'a', prefix: '', connection: redis })).toThrow('prefix: must not be empty');
    expect(await q.count()).toBe(0);
  });

  it('a delayed job fires once, with its lateness measured from when it was due', async () => {
    const q = queue(REDIS_URL);
    const fired: { job: Job<Fire>; timing: JobTiming }[] = [];
    const latenesses: number[] = [];
    const worker = createWorker<Fire>({
      name: q.name,
      prefix,
      connection: redis,
      handler: async (job, timing) => {
        fired.push({ job, timing });
      },
      onLateness: (ms) => latenesses.push(ms),
    });
    try {
      const now = new Date();
      const at = new Date(now.getTime() + 300);
      const id = encodeJobId('default', 'soon', at.toISOString());
      await scheduleAt(q, id, at, { rule: 'soon' }, now);
      await scheduleAt(q, id, at, { rule: 'soon' }, now);
      await until(() => fired.length > 0, 'the job to fire');
      await until(async () => (await q.getCompletedCount()) === 1, 'the job to complete');
      const [first] = fired;
      expect(fired).toHaveLength(1);
      expect(first?.job.id).toBe(id);
      expect(first?.job.data).toEqual({ rule: 'soon' });
      // job.delay reads 0 after promotion; the timing must come from opts.delay.
      expect(first?.job.delay).toBe(0);
      expect(first?.timing.dueAt).toBe(at.getTime());
      expect(first?.timing.lateMs).toBeGreaterThan(0);
      expect(latenesses).toEqual([first?.timing.lateMs]);
      // Completed jobs are kept, so scheduling the same id after it ran does not run it again.
      await scheduleAt(q, id, at, { rule: 'soon' }, new Date());
      expect(await q.getDelayedCount()).toBe(0);
      expect(await q.getWaitingCount()).toBe(0);
    } finally {
      await worker.close();
    }
  });

  it('a job already due when scheduled runs at once, late by how long past due it was', async () => {
    const q = queue();
    const fired: JobTiming[] = [];
    const worker = createWorker<Fire>({
      name: q.name,
      prefix,
      connection: REDIS_URL,
      handler: async (_job, timing) => void fired.push(timing),
    });
    try {
      const now = new Date();
      const at = new Date(now.getTime() - 5000);
      await scheduleAt(q, 'overdue', at, { rule: 'overdue' }, now);
      await until(() => fired.length === 1, 'the overdue job');
      expect(fired[0]?.dueAt).toBe(at.getTime());
      expect(fired[0]?.lateMs).toBeGreaterThanOrEqual(5000);
    } finally {
      await worker.close();
    }
  });

  it('workers close the connections they opened', async () => {
    const before = Number(/connected_clients:(\d+)/.exec(await redis.info('clients'))?.[1]);
    const q = queue();
    const w1 = createWorker<Fire>({ name: q.name, prefix, connection: REDIS_URL, handler: async () => undefined });
    const w2 = createWorker<Fire>({ name: q.name, prefix, connection: redis, handler: async () => undefined });
    await w1.waitUntilReady();
    await w2.waitUntilReady();
    await w1.close();
    await w2.close();
    await q.close();
    // The shared connection stays usable: it belongs to the caller.
    expect(await redis.ping()).toBe('PONG');
    await until(
      async () => Number(/connected_clients:(\d+)/.exec(await redis.info('clients'))?.[1]) <= before,
      'connections to close',
    );
  });

  it('refuses a bad concurrency', () => {
    expect(() =>
      createWorker({ name: 'w', prefix, connection: redis, concurrency: 0, handler: async () => undefined }),
    ).toThrow(/concurrency must be an integer >= 1, got 0/);
  });
});
