// ReplicaShares on a real NATS server: the members are what the server keeps, a replica that stops leaves at once,
// one that dies (its connection gone, its consumer left behind) within its lease.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectBus, type Bus } from '@flotilla/bus';
import { testBus } from '@flotilla/bus/testing';
import { eventually, NATS_URL, scaled } from '@flotilla/testkit';
import { ReplicaShares, type SharesChange } from './replica-shares.js';
import { ownerOf } from './shares.js';

const LEASE_MS = 3000;
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
let bus: Bus & { dispose(): Promise<void> };
const started: ReplicaShares[] = [];

beforeAll(async () => {
  bus = await testBus('shares');
});
afterAll(async () => {
  for (const s of started) await s.stop();
  await bus?.dispose();
});

function replica(self: string, on: Bus = bus, changes: SharesChange[] = []) {
  const shares = new ReplicaShares({
    bus: on,
    group: 'affinity-scheduler',
    leaseMs: LEASE_MS,
    pollMs: 100,
    logger: silent,
    self,
    onChange: (c) => changes.push(c),
  });
  started.push(shares);
  return shares;
}

describe('ReplicaShares', () => {
  it('refuses a lease too short for its keep-alive, naming the option', () => {
    expect(
      () => new ReplicaShares({ bus, group: 'g', leaseMs: 1000, logger: silent, onChange: () => undefined }),
    ).toThrow(/leaseMs must be an integer of at least 3000, got 1000/);
  });

  it('splits the keys over the live members; one stopped leaves at once, one killed within its lease', async () => {
    const changesOfA: SharesChange[] = [];
    const a = replica('a', bus, changesOfA);
    await a.start();
    expect(a.members).toEqual(['a']);
    expect(a.owns('Deployment.default.web')).toBe(true);

    // b joins: a hears of it and the keys split as rendezvous hashing says, the same on both.
    const b = replica('b');
    await b.start();
    await eventually(() => (a.members.length === 2 ? true : undefined), 5000, 'a to see b');
    expect(changesOfA.at(-1)).toMatchObject({ members: ['a', 'b'], joined: ['b'], left: [] });
    const keys = Array.from({ length: 1000 }, (_, i) => `ResourceBinding.default.app-${i}-deployment`);
    for (const k of keys) expect(a.owns(k)).toBe(ownerOf(k, ['a', 'b']) === 'a');
    for (const k of keys) expect(b.owns(k)).toBe(!a.owns(k));
    expect(keys.filter((k) => a.owns(k)).length).toBeGreaterThan(400);
    // What a owned before b joined, for the keys it had to hand over.
    expect(keys.every((k) => changesOfA.at(-1)!.ownedBefore(k))).toBe(true);

    // b stops: it deletes its consumer, a owns everything again at its next poll.
    await b.stop();
    await eventually(() => (a.members.length === 1 ? true : undefined), 2000, 'a to see b leave');

    // c dies: its connection closes without a word; NATS deletes its consumer once its lease has run out.
    const cBus = await connectBus({ url: NATS_URL, prefix: bus.names.prefix, name: 'replica-c' });
    const c = new ReplicaShares({
      bus: cBus,
      group: 'affinity-scheduler',
      leaseMs: LEASE_MS,
      pollMs: 100,
      logger: silent,
      self: 'c',
      onChange: () => undefined,
    });
    await c.start();
    await eventually(() => (a.members.includes('c') ? true : undefined), 5000, 'a to see c');
    const diedAt = Date.now();
    await cBus.close(); // c's loops now fail quietly, as a dead process's would never run
    await eventually(() => (a.members.includes('c') ? undefined : true), scaled(LEASE_MS + 3000), 'a to see c gone');
    const goneAfter = Date.now() - diedAt;
    console.log(
      `replica shares: a dead member left the list ${goneAfter} ms after its connection closed (lease ${LEASE_MS} ms)`,
    );
    expect(goneAfter).toBeLessThanOrEqual(scaled(LEASE_MS + 1000));
    expect(a.members).toEqual(['a']);
    await c.stop(); // its timers, which a dead process would not have
  }, 30_000);
});
