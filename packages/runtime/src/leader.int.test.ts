import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from './clock.js';
import { NotLeaderError } from './errors.js';
import { LeaderElector, runWhileLeader, type DemotionReason } from './leader.js';
import { closeRedis, createRedis } from './redis.js';
import { deleteKeys, REDIS_URL, sleep, uniquePrefix, until } from './testing/redis.js';

// Long enough that a busy test machine does not miss renewals, short enough for quick hand-overs.
const LEASE_MS = 1000;

describe('LeaderElector (real Redis)', () => {
  const prefix = uniquePrefix('leader');
  let admin: Redis;
  const connections: Redis[] = [];
  const electors: LeaderElector[] = [];
  let n = 0;

  beforeAll(async () => {
    admin = createRedis(REDIS_URL);
    await admin.ping();
  });
  afterEach(async () => {
    await Promise.all(electors.splice(0).map((e) => e.stop()));
    await Promise.all(connections.splice(0).map((c) => closeRedis(c)));
  });
  afterAll(async () => {
    await deleteKeys(admin, prefix);
    await closeRedis(admin);
  });

  function newKey(): string {
    return `${prefix}:lease-${n++}`;
  }

  function elector(
    key: string,
    id: string,
    extra: Partial<ConstructorParameters<typeof LeaderElector>[0]> = {},
  ): { e: LeaderElector; redis: Redis } {
    const redis = createRedis(REDIS_URL);
    connections.push(redis);
    const e = new LeaderElector({ redis, key, id, leaseMs: LEASE_MS, retryMs: 50, ...extra });
    electors.push(e);
    return { e, redis };
  }

  it('one of two replicas leads, with a fencing token; the other follows', async () => {
    const key = newKey();
    const a = elector(key, 'a').e;
    const b = elector(key, 'b').e;
    const elected: number[] = [];
    a.onElected((t) => elected.push(t));
    await a.start();
    await b.start();
    expect(a.isLeader()).toBe(true);
    expect(b.isLeader()).toBe(false);
    expect(a.fencingToken).toBe(1);
    expect(b.fencingToken).toBeUndefined();
    expect(elected).toEqual([1]);
    expect(a.assertLeader()).toBe(1);
    expect(() => b.assertLeader()).toThrow(NotLeaderError);
    expect(await admin.get(key)).toBe('a');
    // Renewal keeps it: after several lease lengths the leader is unchanged.
    await sleep(LEASE_MS * 2);
    expect(a.isLeader()).toBe(true);
    expect(b.isLeader()).toBe(false);
    expect(elected).toEqual([1]);
  });

  it('stop() releases the lease; the standby takes it with a larger token', async () => {
    const key = newKey();
    const a = elector(key, 'a').e;
    const b = elector(key, 'b').e;
    const demoted: DemotionReason[] = [];
    a.onDemoted((r) => demoted.push(r));
    await a.start();
    await b.start();
    const first = a.fencingToken ?? 0;
    await a.stop();
    expect(demoted).toEqual(['stopped']);
    expect(a.isLeader()).toBe(false);
    // Released, not expired: the standby gets it while the old lease would still be alive.
    await until(() => b.isLeader(), 'b to lead');
    expect(b.fencingToken).toBeGreaterThan(first);
    expect(await admin.get(key)).toBe('b');
  });

  it('hand-over after a kill: the old leader demotes itself before the standby gains the lease, never both', async () => {
    const key = newKey();
    const old = elector(key, 'old');
    const standby = elector(key, 'standby').e;
    const timeline: string[] = [];
    old.e.onDemoted((r) => timeline.push(`old demoted (${r})`));
    standby.onElected(() => timeline.push('standby elected'));
    await old.e.start();
    await standby.start();
    const oldToken = old.e.fencingToken ?? 0;
    expect(oldToken).toBeGreaterThan(0);

    // The "kill": its connection is gone, so it can neither renew nor release.
    old.redis.disconnect();

    let samples = 0;
    let bothLeaders = 0;
    let standbyLedWhileOldKeyLived = 0;
    while (!standby.isLeader()) {
      samples++;
      if (old.e.isLeader() && standby.isLeader()) bothLeaders++;
      const standbyLeads = standby.isLeader();
      // Read after the check: if the standby already led, the key must be its own by now.
      const holder = await admin.get(key);
      if (standbyLeads && holder === 'old') standbyLedWhileOldKeyLived++;
      if (samples > 20_000) throw new Error('standby never took over');
      await sleep(2);
    }
    // Keep sampling a little after the hand-over, too.
    for (let i = 0; i < 50; i++) {
      if (old.e.isLeader() && standby.isLeader()) bothLeaders++;
      await sleep(2);
    }
    expect(samples).toBeGreaterThan(10);
    expect(bothLeaders).toBe(0);
    expect(standbyLedWhileOldKeyLived).toBe(0);
    expect(timeline).toEqual(['old demoted (deadline)', 'standby elected']);
    expect(old.e.isLeader()).toBe(false);
    expect(standby.fencingToken).toBeGreaterThan(oldToken);
    expect(await admin.get(key)).toBe('standby');
    // Stopping the cut-off replica does not throw (its release fails and is logged).
    await old.e.stop();
  });

  it('fencing tokens increase with every hand-over', async () => {
    const key = newKey();
    const tokens: number[] = [];
    for (const id of ['r1', 'r2', 'r3', 'r1']) {
      const { e } = elector(key, id);
      e.onElected((t) => tokens.push(t));
      await e.start();
      await until(() => e.isLeader(), `${id} to lead`);
      await e.stop();
    }
    expect(tokens).toHaveLength(4);
    for (let i = 1; i < tokens.length; i++) expect(tokens[i]).toBeGreaterThan(tokens[i - 1] ?? Infinity);
  });

  it('a leader whose lease was taken from it demotes itself at the next renewal', async () => {
    const key = newKey();
    const a = elector(key, 'a').e;
    const demoted: DemotionReason[] = [];
    a.onDemoted((r) => demoted.push(r));
    await a.start();
    expect(a.isLeader()).toBe(true);
    await admin.set(key, 'intruder', 'PX', 60_000);
    await until(() => demoted.length > 0, 'demotion');
    expect(demoted).toEqual(['lost']);
    expect(a.isLeader()).toBe(false);
    // And it does not take the lease back while the other holder keeps it.
    await sleep(200);
    expect(a.isLeader()).toBe(false);
    expect(await admin.get(key)).toBe('intruder');
  });

  it('by its own clock, a leader stops acting at the deadline even before any timer fires', async () => {
    const key = newKey();
    const clock = new ManualClock(Date.parse('2026-03-08T06:00:00Z'));
    const a = elector(key, 'a', { clock, leaseMs: 60_000 }).e;
    const demoted: DemotionReason[] = [];
    a.onDemoted((r) => demoted.push(r));
    await a.start();
    expect(a.isLeader()).toBe(true);
    clock.advance(60_000 * 0.8 - 1);
    expect(a.isLeader()).toBe(true);
    clock.advance(1);
    expect(a.isLeader()).toBe(false);
    expect(a.fencingToken).toBeUndefined();
    expect(demoted).toEqual(['deadline']);
  });

  it('refuses bad options', () => {
    const redis = createRedis(REDIS_URL, { extra: { lazyConnect: true } });
    connections.push(redis);
    expect(() => new LeaderElector({ redis, key: '', leaseMs: 1000 })).toThrow(/key must not be empty/);
    expect(() => new LeaderElector({ redis, key: 'k', leaseMs: 10 })).toThrow(
      /leaseMs must be an integer >= 30, got 10/,
    );
    expect(() => new LeaderElector({ redis, key: 'k', leaseMs: 1000.5 })).toThrow(/leaseMs/);
    expect(() => new LeaderElector({ redis, key: 'k', leaseMs: 1000, retryMs: 0 })).toThrow(/retryMs must be > 0/);
    expect(() => new LeaderElector({ redis, key: 'k', leaseMs: 1000, id: '' })).toThrow(/id must not be empty/);
    expect(new LeaderElector({ redis, key: 'k', leaseMs: 1000 }).id).toMatch(/-\d+-[0-9a-f]{6}$/);
  });
});

describe('runWhileLeader (real Redis)', () => {
  const prefix = uniquePrefix('rwl');
  let admin: Redis;
  const connections: Redis[] = [];
  const electors: LeaderElector[] = [];
  let n = 0;

  beforeAll(async () => {
    admin = createRedis(REDIS_URL);
    await admin.ping();
  });
  afterEach(async () => {
    await Promise.all(electors.splice(0).map((e) => e.stop()));
    await Promise.all(connections.splice(0).map((c) => closeRedis(c)));
  });
  afterAll(async () => {
    await deleteKeys(admin, prefix);
    await closeRedis(admin);
  });

  function elector(key: string, id: string): { e: LeaderElector; redis: Redis } {
    const redis = createRedis(REDIS_URL);
    connections.push(redis);
    const e = new LeaderElector({ redis, key, id, leaseMs: LEASE_MS, retryMs: 50 });
    electors.push(e);
    return { e, redis };
  }

  /** Work that records its life and runs until aborted. */
  function recorder(name: string, log: string[]) {
    return async (signal: AbortSignal, token: number): Promise<void> => {
      log.push(`${name} start ${token}`);
      await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
      log.push(`${name} aborted`);
    };
  }

  it('runs work while leader and aborts it on demotion, before the next leader starts its own', async () => {
    const key = `${prefix}:lease-${n++}`;
    const log: string[] = [];
    const a = elector(key, 'a');
    const b = elector(key, 'b');
    const stopA = runWhileLeader(a.e, recorder('a', log));
    const stopB = runWhileLeader(b.e, recorder('b', log));
    await a.e.start();
    await b.e.start();
    await until(() => log.length === 1, 'a to start work');
    expect(log).toEqual(['a start 1']);
    a.redis.disconnect();
    await until(() => log.some((l) => l.startsWith('b start')), 'b to start work');
    expect(log).toEqual(['a start 1', 'a aborted', 'b start 2']);
    await stopA();
    await stopB();
    expect(log).toEqual(['a start 1', 'a aborted', 'b start 2', 'b aborted']);
  });

  it('starts at once when already leader, and restarts work that fails while still leader', async () => {
    const key = `${prefix}:lease-${n++}`;
    const a = elector(key, 'a').e;
    await a.start();
    let runs = 0;
    const stop = runWhileLeader(
      a,
      async (signal) => {
        runs++;
        if (runs < 3) throw new Error(`boom ${runs}`);
        await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
      },
      { restartDelayMs: 10 },
    );
    await until(() => runs === 3, 'third run');
    await stop();
    expect(runs).toBe(3);
  });

  it('work that returns is not restarted within the term', async () => {
    const key = `${prefix}:lease-${n++}`;
    const a = elector(key, 'a').e;
    let runs = 0;
    const stop = runWhileLeader(a, async () => {
      runs++;
    });
    await a.start();
    // A whole lease length of the term (the time is what is under test: a restart would come within it).
    await sleep(LEASE_MS);
    await stop();
    expect(runs).toBe(1);
  });
});
