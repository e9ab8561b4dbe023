import { Queue, Worker, type Job, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { pino, type Logger } from 'pino';
import { InvalidJobIdError } from './errors.js';
import { closeRedis, createRedis } from './redis.js';

/*
 * Delayed jobs with deterministic ids. A job id names the thing that must happen once (a rule at a
 * schedule time), so scheduling it again after a restart or a failover is a no-op rather than a
 * second execution. That only holds while BullMQ still remembers the id, hence completed jobs are
 * kept for `keepCompletedSeconds` (a day by default) instead of being removed at once.
 */

/** A Redis connection to share (its owner closes it), or a URL for a connection the helper owns. */
export type RedisConnection = Redis | string;

/** BullMQ reads "a:b:c" as a legacy repeat id and refuses other ids with ':' and integer-like ids. */
export function validateJobId(jobId: string): string {
  if (jobId === '') throw new InvalidJobIdError('jobId', jobId, 'must not be empty');
  if (jobId.includes(':')) throw new InvalidJobIdError('jobId', jobId, "must not contain ':' (use encodeJobId)");
  if (`${Number.parseInt(jobId, 10)}` === jobId) throw new InvalidJobIdError('jobId', jobId, 'must not be an integer');
  return jobId;
}

/**
 * Joins parts into a job id BullMQ accepts, injectively: '%', ':' and '/' inside a part are
 * percent-encoded and parts are joined with '/', so distinct part lists never collide.
 * e.g. encodeJobId('default', 'peak', '2026-03-08T07:00:00.000Z') = 'default/peak/2026-03-08T07%3A00%3A00.000Z'
 */
export function encodeJobId(...parts: string[]): string {
  if (parts.length === 0) throw new InvalidJobIdError('jobId', '', 'needs at least one part');
  const id = parts.map((p) => p.replace(/%/g, '%25').replace(/:/g, '%3A').replace(/\//g, '%2F')).join('/');
  return validateJobId(id);
}

/** Inverse of encodeJobId. */
export function decodeJobId(jobId: string): string[] {
  return jobId.split('/').map((p) => p.replace(/%2F/gi, '/').replace(/%3A/gi, ':').replace(/%25/g, '%'));
}

function validateName(field: 'name' | 'prefix', value: string): void {
  if (value === '') throw new InvalidJobIdError(field, value, 'must not be empty');
  if (value.includes(':')) throw new InvalidJobIdError(field, value, "must not contain ':'");
}

export interface CreateDelayedQueueOptions {
  /** The queue name; no ':'. */
  name: string;
  /** The BullMQ key prefix, usually FLOTILLA_PREFIX, so installations sharing a Redis stay apart. */
  prefix: string;
  connection: RedisConnection;
  /** Used with a URL connection that carries no password. */
  redisPassword?: string | undefined;
  /** How long finished jobs (and so their ids) are remembered; 86400 (a day) by default. */
  keepCompletedSeconds?: number;
  /** How long failed jobs are kept for inspection; 7 days by default. */
  keepFailedSeconds?: number;
  logger?: Logger;
}

/** A BullMQ queue that also closes the connection it opened itself, if any. */
export class DelayedQueue<T = unknown> extends Queue<T> {
  private readonly owned: Redis | undefined;

  constructor(name: string, opts: ConstructorParameters<typeof Queue<T>>[1], owned: Redis | undefined) {
    super(name, opts);
    this.owned = owned;
  }

  override async close(): Promise<void> {
    await super.close();
    if (this.owned) await closeRedis(this.owned);
  }
}

export function createDelayedQueue<T = unknown>(opts: CreateDelayedQueueOptions): DelayedQueue<T> {
  validateName('name', opts.name);
  validateName('prefix', opts.prefix);
  const owned =
    typeof opts.connection === 'string' ? createRedis(opts.connection, { password: opts.redisPassword }) : undefined;
  const queue = new DelayedQueue<T>(
    opts.name,
    {
      connection: owned ?? (opts.connection as Redis),
      prefix: opts.prefix,
      defaultJobOptions: {
        removeOnComplete: { age: opts.keepCompletedSeconds ?? 86_400 },
        removeOnFail: { age: opts.keepFailedSeconds ?? 7 * 86_400 },
      },
    },
    owned,
  );
  const logger = opts.logger ?? pino({ level: 'silent' });
  queue.on('error', (err) => logger.error({ err, queue: opts.name }, 'queue error'));
  return queue;
}

/**
 * Schedules `data` to be processed at `at` under `jobId`. Adding an id the queue still holds is a
 * no-op that returns the id, so callers may schedule freely after restarts. The job's timestamp is
 * set so that its due time (timestamp + delay) is exactly `at`, also when `at` is already past,
 * which makes lateness measure from the intended time.
 */
export async function scheduleAt<T>(
  queue: Queue<T>,
  jobId: string,
  at: Date,
  data: T,
  now: Date,
  opts: Pick<JobsOptions, 'attempts' | 'backoff' | 'priority'> = {},
): Promise<string> {
  validateJobId(jobId);
  const atMs = at.getTime();
  const nowMs = now.getTime();
  if (!Number.isFinite(atMs)) throw new InvalidJobIdError('jobId', jobId, `has an invalid due time ${String(at)}`);
  if (!Number.isFinite(nowMs)) throw new RangeError(`scheduleAt: now is an invalid date`);
  const delay = Math.max(0, atMs - nowMs);
  const job = await (queue as Queue).add(queue.name, data, { ...opts, jobId, delay, timestamp: Math.min(atMs, nowMs) });
  return job.id ?? jobId;
}

/**
 * Removes a job (pending or finished, so its id becomes free); false when there was none, or when
 * it is running right now, which BullMQ refuses to remove.
 */
export async function removeJob(queue: Queue, jobId: string): Promise<boolean> {
  validateJobId(jobId);
  // BullMQ's remove answers 1 for an id it never had, so existence is checked first.
  if ((await queue.getJobState(jobId)) === 'unknown') return false;
  return (await queue.remove(jobId)) === 1;
}

/** When a job was meant to run: its timestamp plus the delay it was added with. */
export function jobDueAt(job: Pick<Job, 'timestamp' | 'opts'>): number {
  // job.delay is reset to 0 when a delayed job is promoted; opts.delay keeps the original.
  return job.timestamp + (job.opts.delay ?? 0);
}

/** How late a job started, in ms; undefined before it has started. */
export function jobLateness(job: Pick<Job, 'timestamp' | 'opts' | 'processedOn'>): number | undefined {
  if (job.processedOn === undefined) return undefined;
  return job.processedOn - jobDueAt(job);
}

export interface JobTiming {
  /** When the job was due (ms since the epoch). */
  dueAt: number;
  /** How long after `dueAt` the worker picked it up, in ms. */
  lateMs: number;
}

export interface CreateWorkerOptions<T, R> {
  name: string;
  prefix: string;
  /**
   * A URL, or a connection to copy. Workers block on Redis, so the worker always runs on
   * connections of its own (with `maxRetriesPerRequest: null`) and closes them on `close()`.
   */
  connection: RedisConnection;
  redisPassword?: string | undefined;
  handler: (job: Job<T, R>, timing: JobTiming, signal?: AbortSignal) => Promise<R>;
  concurrency?: number;
  /** Start pulling jobs at once (the default) or on `worker.run()`. */
  autorun?: boolean;
  logger?: Logger;
  /** Called with each job's lateness, e.g. to feed a histogram. */
  onLateness?: (lateMs: number, job: Job<T, R>) => void;
  /** How long `close()` waits for BullMQ before it drops the connections (default WORKER_CLOSE_TIMEOUT_MS). */
  closeTimeoutMs?: number;
}

/** How long `DelayedWorker.close` waits for BullMQ's own close, by default, before it drops the connections. */
export const WORKER_CLOSE_TIMEOUT_MS = 2000;

/** A BullMQ worker that closes the connection it opened, and whose close always ends. */
export class DelayedWorker<T = unknown, R = unknown> extends Worker<T, R> {
  private readonly owned: Redis;
  private readonly closeTimeoutMs: number;

  constructor(
    name: string,
    processor: ConstructorParameters<typeof Worker<T, R>>[1],
    opts: ConstructorParameters<typeof Worker<T, R>>[2],
    owned: Redis,
    closeTimeoutMs = WORKER_CLOSE_TIMEOUT_MS,
  ) {
    super(name, processor, opts);
    this.owned = owned;
    this.closeTimeoutMs = closeTimeoutMs;
  }

  /**
   * BullMQ's close, bounded: a worker's commands wait for Redis without limit (`maxRetriesPerRequest: null`), so a
   * close that starts while Redis is down (a leader deposed by the outage stops exactly then) would wait for its
   * lock renewal or job fetch forever. After `closeTimeoutMs` the connections are dropped and the close returns.
   */
  override async close(force?: boolean): Promise<void> {
    const closing = super.close(force).then(() => true);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), this.closeTimeoutMs)));
    let closed: boolean;
    try {
      closed = await Promise.race([closing, timedOut]);
    } finally {
      clearTimeout(timer);
    }
    if (!closed) {
      // BullMQ's close may still never settle (it can wait on a command queued before the drop); it is left behind.
      closing.catch(() => undefined);
      void this.disconnect().catch(() => undefined);
      this.owned.disconnect();
      return;
    }
    await closeRedis(this.owned);
  }
}

export function createWorker<T = unknown, R = unknown>(opts: CreateWorkerOptions<T, R>): DelayedWorker<T, R> {
  validateName('name', opts.name);
  validateName('prefix', opts.prefix);
  if (opts.concurrency !== undefined && (!Number.isInteger(opts.concurrency) || opts.concurrency < 1)) {
    throw new RangeError(`createWorker: concurrency must be an integer >= 1, got ${opts.concurrency}`);
  }
  const logger = opts.logger ?? pino({ level: 'silent' });
  const connection =
    typeof opts.connection === 'string'
      ? createRedis(opts.connection, { password: opts.redisPassword, forBullmq: true })
      : opts.connection.duplicate({ maxRetriesPerRequest: null });
  const worker = new DelayedWorker<T, R>(
    opts.name,
    async (job, _token, signal) => {
      const dueAt = jobDueAt(job);
      const lateMs = (job.processedOn ?? Date.now()) - dueAt;
      opts.onLateness?.(lateMs, job);
      return opts.handler(job, { dueAt, lateMs }, signal);
    },
    { connection, prefix: opts.prefix, concurrency: opts.concurrency ?? 1, autorun: opts.autorun ?? true },
    connection,
    opts.closeTimeoutMs,
  );
  worker.on('error', (err) => logger.error({ err, queue: opts.name }, 'worker error'));
  worker.on('failed', (job, err) => logger.warn({ err, queue: opts.name, jobId: job?.id }, 'job failed'));
  return worker;
}
