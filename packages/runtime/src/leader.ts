import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { pino, type Logger } from 'pino';
import { systemClock, type Clock } from './clock.js';
import { NotLeaderError } from './errors.js';

/*
 * Leases are one key per election holding the holder's id with a PX expiry, plus a counter key that
 * is INCRed on every acquisition and serves as the fencing token. Every transition is one Lua script,
 * so a check and the write it guards can never interleave with another replica's.
 */

// Taking over our own key (still there after we demoted ourselves, or after an acquire whose reply
// we lost) is safe: nobody else can hold it meanwhile. It still counts as a new acquisition.
const ACQUIRE = `
local v = redis.call('GET', KEYS[1])
if v == false then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return redis.call('INCR', KEYS[2])
end
if v == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return redis.call('INCR', KEYS[2])
end
return 0
`;

const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
`;

const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`;

// The counter is replicated asynchronously like every key, so a Redis failover can take it back below a token already
// handed out (and written into the store as a fence). A holder refused for that reason raises it past what it saw
// and takes the next value, still only while it holds the lease.
const RAISE_FENCING = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
local current = tonumber(redis.call('GET', KEYS[2]) or '0')
if current < tonumber(ARGV[2]) then
  redis.call('SET', KEYS[2], ARGV[2])
end
return redis.call('INCR', KEYS[2])
`;

/**
 * What a leader's writes carry so that the store can refuse a deposed leader's: the term's token, read at each
 * write (it is undefined once the term is over), and a way out when the store has seen a larger token from this
 * very lease (the counter went back in a Redis failover).
 */
export interface Fencing {
  /** The current term's token, or undefined when this replica no longer leads. Larger means later. */
  current(): number | undefined;
  /**
   * The store holds `seen`, larger than current(): if this replica still holds the lease, the counter went back
   * (a Redis failover lost it), so it is raised past `seen` and the new token returned; undefined when the lease is
   * someone else's (this replica is deposed and must not write).
   */
  raise(seen: number): Promise<number | undefined>;
}

/** The share of the lease after which a leader that could not renew stops acting. */
export const SELF_DEMOTE_FRACTION = 0.8;

export interface LeaderElectorOptions {
  redis: Redis;
  /** The lease key; the fencing counter lives at `${key}:fencing`. */
  key: string;
  /** This replica's identity in the lease; unique per process by default. */
  id?: string;
  /** How long a lease lives on Redis without renewal. Renewals go out every leaseMs/3. */
  leaseMs: number;
  /** How often a follower tries to take the lease; leaseMs/3 by default. */
  retryMs?: number;
  clock?: Clock;
  logger?: Logger;
}

export type DemotionReason = 'lost' | 'deadline' | 'stopped';

interface Term {
  token: number;
  /** Local time after which this replica must not act, even if no timer has fired yet. */
  deadline: number;
}

function defaultId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

class CommandTimeout extends Error {
  override readonly name = 'CommandTimeout';
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new CommandTimeout(`${what} timed out after ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (err: unknown) => {
        clearTimeout(t);
        reject(err);
      },
    );
  });
}

export class LeaderElector {
  readonly key: string;
  readonly id: string;
  readonly leaseMs: number;
  readonly retryMs: number;
  private readonly fencingKey: string;
  private readonly redis: Redis;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly electedListeners = new Set<(token: number) => void>();
  private readonly demotedListeners = new Set<(reason: DemotionReason) => void>();
  private running = false;
  private term: Term | undefined;
  /** Bumped on every transition so that replies to commands sent in an earlier term are ignored. */
  private epoch = 0;
  private loopTimer: NodeJS.Timeout | undefined;
  private deadlineTimer: NodeJS.Timeout | undefined;
  private inflight: Promise<void> = Promise.resolve();

  constructor(opts: LeaderElectorOptions) {
    if (opts.key === '') throw new RangeError('LeaderElector: key must not be empty');
    if (!Number.isInteger(opts.leaseMs) || opts.leaseMs < 30) {
      throw new RangeError(`LeaderElector: leaseMs must be an integer >= 30, got ${opts.leaseMs}`);
    }
    if (opts.retryMs !== undefined && (!Number.isFinite(opts.retryMs) || opts.retryMs <= 0)) {
      throw new RangeError(`LeaderElector: retryMs must be > 0, got ${opts.retryMs}`);
    }
    if (opts.id === '') throw new RangeError('LeaderElector: id must not be empty');
    this.redis = opts.redis;
    this.key = opts.key;
    this.fencingKey = `${opts.key}:fencing`;
    this.id = opts.id ?? defaultId();
    this.leaseMs = opts.leaseMs;
    this.retryMs = opts.retryMs ?? Math.max(1, Math.floor(opts.leaseMs / 3));
    this.clock = opts.clock ?? systemClock;
    this.logger = (opts.logger ?? pino({ level: 'silent' })).child({ lease: this.key, replica: this.id });
  }

  /** Starts competing for the lease; resolves after the first attempt, so `isLeader()` reflects it. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.runTick();
  }

  /** Stops competing; demotes at once and releases the lease if held (compare-and-delete). Never throws. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    clearTimeout(this.loopTimer);
    this.loopTimer = undefined;
    if (this.term) this.demote('stopped');
    // An acquire still on the wire could land after the release below; let it finish first.
    await this.inflight.catch(() => undefined);
    if (this.term) this.demote('stopped');
    try {
      await withTimeout(this.redis.eval(RELEASE, 1, this.key, this.id), this.leaseMs, 'release');
    } catch (err) {
      this.logger.warn({ err }, 'could not release the lease; it will expire on its own');
    }
  }

  /**
   * True while this replica holds the lease and its local deadline has not passed. Reading it past
   * the deadline demotes (and notifies) at once, so a blocked event loop cannot stretch a term.
   */
  isLeader(): boolean {
    if (!this.term) return false;
    if (this.clock.now().getTime() >= this.term.deadline) {
      this.demote('deadline');
      return false;
    }
    return true;
  }

  /** The fencing token of the current term, or undefined when not leader. Larger means later. */
  get fencingToken(): number | undefined {
    return this.isLeader() ? this.term?.token : undefined;
  }

  /** This elector as the Fencing of its terms' writes. */
  get fencing(): Fencing {
    return { current: () => this.fencingToken, raise: (seen) => this.raiseFencingToken(seen) };
  }

  /** See Fencing.raise. */
  async raiseFencingToken(seen: number): Promise<number | undefined> {
    const term = this.term;
    if (!term || !this.isLeader()) return undefined;
    const reply = Number(
      await withTimeout(
        this.redis.eval(RAISE_FENCING, 2, this.key, this.fencingKey, this.id, seen),
        this.commandTimeoutMs(),
        'raise fencing token',
      ),
    );
    if (reply === 0 || this.term !== term || !this.isLeader()) return undefined;
    this.logger.warn({ seen, token: reply, was: term.token }, 'fencing token behind the store: raised');
    term.token = reply;
    return reply;
  }

  /** Returns the fencing token, or throws `NotLeaderError`; call before a leader-only side effect. */
  assertLeader(): number {
    const token = this.fencingToken;
    if (token === undefined) throw new NotLeaderError(this.key, this.id);
    return token;
  }

  /** Registers a listener for becoming leader; returns a function that removes it. */
  onElected(listener: (token: number) => void): () => void {
    this.electedListeners.add(listener);
    return () => this.electedListeners.delete(listener);
  }

  /** Registers a listener for ceasing to be leader; returns a function that removes it. */
  onDemoted(listener: (reason: DemotionReason) => void): () => void {
    this.demotedListeners.add(listener);
    return () => this.demotedListeners.delete(listener);
  }

  private runTick(): Promise<void> {
    const p = (this.term ? this.renew() : this.tryAcquire()).catch((err: unknown) => {
      this.logger.warn({ err }, this.term ? 'lease renewal failed' : 'lease acquisition failed');
    });
    this.inflight = p;
    return p.then(() => this.scheduleTick());
  }

  private scheduleTick(): void {
    if (!this.running) return;
    const delay = this.term ? Math.max(1, Math.floor(this.leaseMs / 3)) : this.retryMs;
    this.loopTimer = setTimeout(() => void this.runTick(), delay);
  }

  private async tryAcquire(): Promise<void> {
    const epoch = this.epoch;
    const sentAt = this.clock.now().getTime();
    const reply = await withTimeout(
      this.redis.eval(ACQUIRE, 2, this.key, this.fencingKey, this.id, this.leaseMs),
      this.commandTimeoutMs(),
      'acquire',
    );
    const token = Number(reply);
    if (token === 0 || !this.running || epoch !== this.epoch) return;
    this.epoch++;
    this.term = { token, deadline: sentAt + this.leaseMs * SELF_DEMOTE_FRACTION };
    this.armDeadline();
    this.logger.info({ token }, 'elected leader');
    for (const l of this.electedListeners) this.notify(() => l(token));
  }

  private async renew(): Promise<void> {
    const epoch = this.epoch;
    // The lease on Redis runs from when the script executes, which is after this moment, so
    // measuring from the send time keeps the local deadline strictly before the remote expiry.
    const sentAt = this.clock.now().getTime();
    const reply = await withTimeout(
      this.redis.eval(RENEW, 1, this.key, this.id, this.leaseMs),
      this.commandTimeoutMs(),
      'renew',
    );
    if (epoch !== this.epoch || !this.term) return;
    if (Number(reply) !== 1) {
      this.demote('lost');
      return;
    }
    if (!this.isLeader()) return;
    this.term.deadline = sentAt + this.leaseMs * SELF_DEMOTE_FRACTION;
    this.armDeadline();
  }

  private commandTimeoutMs(): number {
    return Math.max(1, Math.floor(this.leaseMs / 3));
  }

  private armDeadline(): void {
    clearTimeout(this.deadlineTimer);
    if (!this.term) return;
    const ms = Math.max(0, this.term.deadline - this.clock.now().getTime());
    this.deadlineTimer = setTimeout(() => this.demote('deadline'), ms);
  }

  private demote(reason: DemotionReason): void {
    if (!this.term) return;
    const { token } = this.term;
    this.term = undefined;
    this.epoch++;
    clearTimeout(this.deadlineTimer);
    this.deadlineTimer = undefined;
    const log = reason === 'stopped' ? this.logger.info.bind(this.logger) : this.logger.warn.bind(this.logger);
    log({ token, reason }, 'no longer leader');
    for (const l of this.demotedListeners) this.notify(() => l(reason));
  }

  private notify(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.logger.error({ err }, 'leadership listener threw');
    }
  }
}

export interface RunWhileLeaderOptions {
  logger?: Logger;
  /** Pause before restarting work that failed while still leader. */
  restartDelayMs?: number;
}

/** Ends a term's work on purpose so that it starts over (what it watched was lost); not a failure. */
export class WorkRestartRequested extends Error {
  override readonly name = 'WorkRestartRequested';
}

/** Raised as the abort reason of the work's signal when leadership ends. */
export class LeadershipLostError extends Error {
  override readonly name = 'LeadershipLostError';
}

/**
 * Runs `work` during every term of `elector`: started when elected, its signal aborted when demoted.
 * A new term's work starts only after the previous term's work has settled, so two never overlap in
 * this process. Work that fails while still leader is restarted after `restartDelayMs`; work that
 * returns is not. Returns a function that stops it all and waits for the running work to settle.
 */
export function runWhileLeader(
  elector: LeaderElector,
  work: (signal: AbortSignal, token: number) => Promise<void>,
  opts: RunWhileLeaderOptions = {},
): () => Promise<void> {
  const logger = opts.logger ?? pino({ level: 'silent' });
  const restartDelayMs = opts.restartDelayMs ?? 1000;
  let stopped = false;
  let current: { controller: AbortController; done: Promise<void> } | undefined;

  const launch = (token: number): void => {
    if (stopped) return;
    current?.controller.abort(new LeadershipLostError('a new term began'));
    const previous = current?.done ?? Promise.resolve();
    const controller = new AbortController();
    const { signal } = controller;
    const done = (async () => {
      await previous;
      while (!signal.aborted) {
        try {
          await work(signal, token);
          return;
        } catch (err) {
          if (signal.aborted) return;
          if (err instanceof WorkRestartRequested)
            logger.warn({ reason: err.message, token }, 'restarting the leader work');
          else logger.error({ err, token }, 'leader work failed; restarting it');
          await sleep(restartDelayMs, signal);
        }
      }
    })();
    current = { controller, done };
  };

  const offElected = elector.onElected(launch);
  const offDemoted = elector.onDemoted((reason) =>
    current?.controller.abort(new LeadershipLostError(`leadership ended: ${reason}`)),
  );
  const token = elector.fencingToken;
  if (token !== undefined) launch(token);

  return async () => {
    stopped = true;
    offElected();
    offDemoted();
    current?.controller.abort(new LeadershipLostError('stopped'));
    await current?.done;
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
