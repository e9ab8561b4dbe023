// StatusStore.fold against real NATS: the record it wrote last saves the next fold's read, and a record written since
// by anyone else is never folded over.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { deleteKey, type Bus } from '@flotilla/bus';
import { testBus } from '@flotilla/bus/testing';
import { objectKey } from './object.js';
import { StatusStore } from './status-store.js';

let bus: Bus & { dispose(): Promise<void> };
beforeAll(async () => {
  bus = await testBus('status-store');
});
afterAll(async () => {
  await bus?.dispose();
});

/** A status that lists the events folded into it, so that a lost fold shows. */
type Folded = { events: number[] };
const adding =
  (seq: number) =>
  (s: Folded | undefined): Folded => ({ events: [...(s?.events ?? []), seq] });
const ref = (name: string) => ({ kind: 'ResourceBinding', namespace: 'default', name });

describe('StatusStore.fold', () => {
  it('writes nothing for an event that changes nothing: no empty record, no record rewritten the same', async () => {
    const statuses = new StatusStore(bus);
    const writes = async () => (await bus.jsm.streams.info(`KV_${bus.names.statusBucket}`)).state.last_seq;
    const before = await writes();
    // A template's ReplicasApplied sets no status field: no record is made for it.
    expect(await statuses.fold(ref('quiet'), 1, () => ({}))).toEqual({ seq: 1, status: {} });
    expect(await statuses.get(ref('quiet'))).toBeUndefined();
    await statuses.fold(ref('quiet'), 2, () => ({ phase: 'Ready' }));
    // The same status again: the record keeps the sequence of the event that made it.
    expect(await statuses.fold(ref('quiet'), 3, () => ({ phase: 'Ready' }))).toEqual({
      seq: 2,
      status: { phase: 'Ready' },
    });
    expect(await writes()).toBe(before + 1);
    await statuses.fold(ref('quiet'), 4, () => ({ phase: 'Gone' }));
    expect((await statuses.get(ref('quiet')))?.value).toEqual({ seq: 4, status: { phase: 'Gone' } });
  });

  it('folds the events of a new object without reading the bucket: the first creates it, the next start from it', async () => {
    const statuses = new StatusStore(bus);
    const reads = vi.spyOn(bus.status, 'get');
    try {
      await statuses.fold(ref('a'), 1, adding(1));
      await statuses.fold(ref('a'), 2, adding(2));
      await statuses.fold(ref('a'), 3, adding(3));
      // A key the store has not seen is written as a creation; the next two started from what it wrote.
      expect(reads.mock.calls.filter(([key]) => key === objectKey(ref('a')))).toHaveLength(0);
    } finally {
      reads.mockRestore();
    }
    expect((await statuses.get<Folded>(ref('a')))?.value).toEqual({ seq: 3, status: { events: [1, 2, 3] } });
  });

  it('reads a key it has not seen that has a history, after its creation was refused, and loses nothing', async () => {
    await new StatusStore(bus).fold(ref('old'), 1, adding(1));
    const fresh = new StatusStore(bus);
    const reads = vi.spyOn(bus.status, 'get');
    try {
      await fresh.fold(ref('old'), 2, adding(2));
      // Refused as not new, then read once; the next fold starts from what it wrote.
      await fresh.fold(ref('old'), 3, adding(3));
      expect(reads.mock.calls.filter(([key]) => key === objectKey(ref('old')))).toHaveLength(1);
    } finally {
      reads.mockRestore();
    }
    expect((await fresh.get<Folded>(ref('old')))?.value).toEqual({ seq: 3, status: { events: [1, 2, 3] } });
    // A deleted one has a history too: its delete marker.
    await deleteKey(bus.status, objectKey(ref('old')));
    await new StatusStore(bus).fold(ref('old'), 4, adding(4));
    expect((await fresh.get<Folded>(ref('old')))?.value).toEqual({ seq: 4, status: { events: [4] } });
  });

  it('keeps what another writer folded in between: its own memory fails the compare-and-set and it reads again', async () => {
    const mine = new StatusStore(bus);
    const other = new StatusStore(bus);
    await mine.fold(ref('b'), 1, adding(1));
    await other.fold(ref('b'), 2, adding(2));
    await mine.fold(ref('b'), 3, adding(3));
    expect((await mine.get<Folded>(ref('b')))?.value).toEqual({ seq: 3, status: { events: [1, 2, 3] } });
  });

  it('asks the bucket, not its memory, whether an event is folded already', async () => {
    const statuses = new StatusStore(bus);
    await statuses.fold(ref('c'), 5, adding(5));
    // The record goes (the object was deleted, as ObjectStore.delete drops its status), then an event it had folded
    // is delivered again: the bucket has nothing, so it is folded anew.
    await deleteKey(bus.status, objectKey(ref('c')));
    await statuses.fold(ref('c'), 5, adding(5));
    expect((await statuses.get<Folded>(ref('c')))?.value).toEqual({ seq: 5, status: { events: [5] } });
    // And a later event after the delete starts from the new record, not the remembered one.
    await deleteKey(bus.status, objectKey(ref('c')));
    await statuses.fold(ref('c'), 6, adding(6));
    expect((await statuses.get<Folded>(ref('c')))?.value).toEqual({ seq: 6, status: { events: [6] } });
  });

  it('asks the bucket when an event changes nothing in what it remembers: a record lost under it is written again', async () => {
    const statuses = new StatusStore(bus);
    const same = () => ({ phase: 'Ready' });
    await statuses.fold(ref('lost'), 1, same);
    // The bucket lost the record (a NATS restarted without its data re-creates its buckets empty); the next report
    // says the same as the one it lost, which from memory changes nothing.
    await bus.status.purge(objectKey(ref('lost')));
    await statuses.fold(ref('lost'), 2, same);
    expect((await statuses.get(ref('lost')))?.value).toEqual({ seq: 2, status: { phase: 'Ready' } });
    // Still there, it is read once and not written again.
    const writes = async () => (await bus.jsm.streams.info(`KV_${bus.names.statusBucket}`)).state.last_seq;
    const before = await writes();
    const reads = vi.spyOn(bus.status, 'get');
    try {
      expect(await statuses.fold(ref('lost'), 3, same)).toEqual({ seq: 2, status: { phase: 'Ready' } });
      expect(reads.mock.calls.map(([key]) => key)).toEqual([objectKey(ref('lost'))]);
    } finally {
      reads.mockRestore();
    }
    expect(await writes()).toBe(before);
  });

  it('remembers at most rememberedWrites records, and none with 0', async () => {
    for (const rememberedWrites of [1, 0]) {
      const statuses = new StatusStore(bus, { rememberedWrites });
      const [d, e] = [ref(`d${rememberedWrites}`), ref(`e${rememberedWrites}`)];
      await statuses.fold(d, 1, adding(1));
      await statuses.fold(e, 2, adding(2));
      const reads = vi.spyOn(bus.status, 'get');
      try {
        await statuses.fold(e, 3, adding(3));
        await statuses.fold(d, 4, adding(4));
        // With room for one, e (written last) is remembered and d, pushed out, is read; with none, both are read.
        const expected = rememberedWrites === 1 ? [d] : [e, d];
        expect(reads.mock.calls.map(([key]) => key)).toEqual(expected.map(objectKey));
      } finally {
        reads.mockRestore();
      }
      expect((await statuses.get<Folded>(d))?.value.status.events).toEqual([1, 4]);
    }
  });

  it('refuses options that are not whole numbers', () => {
    expect(() => new StatusStore(bus, { rememberedWrites: -1 })).toThrow(/rememberedWrites must be a whole number/);
    expect(() => new StatusStore(bus, { maxRetries: 1.5 })).toThrow(/maxRetries must be a whole number/);
  });
});
