import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBus } from './testing/index.js';
import { eventually } from '@flotilla/testkit';
import { connectBus, type Bus } from './connect.js';
import { BusUnavailableError } from './errors.js';
import { cloudEvent } from './cloud-event.js';
import { consumeEvents, publishEvent, readEvents, type DeliveredEvent } from './events.js';
import { createJson, getJson, listJson, updateJson, deleteKey } from './kv-json.js';
import {
  AlreadyExistsError,
  ConflictError,
  isConsumerNotFound,
  isStreamNameInUse,
  isStreamNotFound,
  isWrongLastSequence,
} from './errors.js';
import { ensureEventsStream } from './provision.js';

let bus: Bus & { dispose(): Promise<void> };
beforeAll(async () => {
  bus = await testBus('bus');
});
afterAll(async () => {
  await bus?.dispose();
});

const ev = (name: string, id?: string) =>
  cloudEvent({
    id,
    source: 'test',
    type: 'Thing',
    kind: 'Deployment',
    namespace: 'default',
    name,
    time: new Date(0),
    data: { name },
  });

describe('KV compare-and-set', () => {
  it('creates once, updates at the right revision, and reports a stale one as a conflict', async () => {
    const r1 = await createJson(bus.objects, 'Deployment.default.web', { v: 1 });
    await expect(createJson(bus.objects, 'Deployment.default.web', { v: 9 })).rejects.toBeInstanceOf(
      AlreadyExistsError,
    );
    const r2 = await updateJson(bus.objects, 'Deployment.default.web', { v: 2 }, r1);
    await expect(updateJson(bus.objects, 'Deployment.default.web', { v: 3 }, r1)).rejects.toBeInstanceOf(ConflictError);
    expect(await getJson(bus.objects, 'Deployment.default.web')).toEqual({
      key: 'Deployment.default.web',
      value: { v: 2 },
      revision: r2,
    });
    await expect(deleteKey(bus.objects, 'Deployment.default.web', r1)).rejects.toBeInstanceOf(ConflictError);
    await deleteKey(bus.objects, 'Deployment.default.web', r2);
    expect(await getJson(bus.objects, 'Deployment.default.web')).toBeUndefined();
  });

  it('lists live values of a key range in one pass, skipping deleted keys', async () => {
    for (let i = 0; i < 50; i++) await createJson(bus.objects, `ConfigMap.ns1.cm-${i}`, { i });
    await createJson(bus.objects, 'ConfigMap.ns2.other', { i: -1 });
    await deleteKey(bus.objects, 'ConfigMap.ns1.cm-7');
    const snap = await listJson<{ i: number }>(bus.js, bus.names.objectsBucket, 'ConfigMap.ns1.>');
    expect(snap.items.map((x) => x.value.i).sort((a, b) => a - b)).toEqual(
      [...Array(50).keys()].filter((i) => i !== 7),
    );
    expect(snap.lastRevision).toBeGreaterThanOrEqual(Math.max(...snap.items.map((x) => x.revision)));
    expect((await listJson(bus.js, bus.names.objectsBucket, 'Nothing.>')).items).toEqual([]);
  });
});

describe('JetStream errors are told apart by their API codes', () => {
  const caught = async (p: Promise<unknown>): Promise<unknown> =>
    p.then(
      () => undefined,
      (err: unknown) => err,
    );

  it('a stale compare-and-set and a create over a live key are "wrong last sequence"; the typed errors keep the cause', async () => {
    const r1 = await bus.objects.create('Codes.cas', new Uint8Array([1]));
    await bus.objects.update('Codes.cas', new Uint8Array([2]), r1);
    expect(isWrongLastSequence(await caught(bus.objects.update('Codes.cas', new Uint8Array([3]), r1)))).toBe(true);
    expect(isWrongLastSequence(await caught(bus.objects.create('Codes.cas', new Uint8Array([4]))))).toBe(true);
    const dup = await caught(createJson(bus.objects, 'Codes.cas', {}));
    expect(dup).toBeInstanceOf(AlreadyExistsError);
    expect(isWrongLastSequence((dup as Error).cause)).toBe(true);
  });

  it('a missing stream or consumer is "not found", a clashing stream "name in use", and neither is a sequence loss', async () => {
    const missing = await caught(bus.jsm.streams.info(`${bus.names.eventsStream}_missing`));
    expect(isStreamNotFound(missing)).toBe(true);
    expect(isWrongLastSequence(missing)).toBe(false);
    const noConsumer = await caught(bus.jsm.consumers.info(bus.names.eventsStream, 'nobody'));
    expect([isConsumerNotFound(noConsumer), isStreamNotFound(noConsumer)]).toEqual([true, false]);
    const name = `${bus.names.eventsStream}_clash`;
    await bus.jsm.streams.add({ name, subjects: [`${bus.names.eventsRoot}-clash.a`] });
    try {
      const clash = await caught(bus.jsm.streams.add({ name, subjects: [`${bus.names.eventsRoot}-clash.b`] }));
      expect(isStreamNameInUse(clash)).toBe(true);
      expect(isStreamNotFound(clash)).toBe(false);
    } finally {
      await bus.jsm.streams.delete(name);
    }
  });

  it('provisioning the events stream twice updates it in place', async () => {
    await ensureEventsStream(bus.jsm, bus.names, { maxMessages: 1000 });
    expect((await bus.jsm.streams.info(bus.names.eventsStream)).config.max_msgs).toBe(1000);
  });

  it('the events stream has a byte limit and drops the oldest events past it, so it cannot starve the objects', async () => {
    await ensureEventsStream(bus.jsm, bus.names, { maxBytes: 64 * 1024 });
    const { config } = await bus.jsm.streams.info(bus.names.eventsStream);
    expect([config.max_bytes, config.discard]).toEqual([64 * 1024, 'old']);
    const payload = 'x'.repeat(1024);
    for (let i = 0; i < 200; i++) await bus.js.publish(`${bus.names.eventsRoot}.Test._.fill.Filled`, payload);
    const { state } = await bus.jsm.streams.info(bus.names.eventsStream);
    expect(state.bytes).toBeLessThanOrEqual(64 * 1024);
    expect(state.first_seq).toBeGreaterThan(1);
    await ensureEventsStream(bus.jsm, bus.names, {});
  });

  it('repair finds nothing to do on an intact server, and re-creates what a data loss took', async () => {
    expect(await bus.repair()).toEqual([]);
    await bus.jsm.streams.delete(`KV_${bus.names.statusBucket}`);
    expect(await bus.repair()).toEqual([`KV_${bus.names.statusBucket}`]);
    // The bucket handle works again on the re-created stream.
    await bus.status.put('Cluster._.m1', new TextEncoder().encode('{}'));
    expect((await bus.status.get('Cluster._.m1'))?.string()).toBe('{}');
    expect(await bus.repair()).toEqual([]);
  });

  it('repair notices a stream re-created by another client (its creation time changed)', async () => {
    await bus.jsm.streams.delete(bus.names.eventsStream);
    await ensureEventsStream(bus.jsm, bus.names);
    expect(await bus.repair()).toEqual([bus.names.eventsStream]);
    expect(await bus.repair()).toEqual([]);
  });

  it("an error that is not JetStream's is never classified, whatever its text says", () => {
    const impostor = new Error(
      'wrong last sequence: 3; stream not found; consumer not found; stream name already in use',
    );
    expect(
      [isWrongLastSequence, isStreamNotFound, isStreamNameInUse, isConsumerNotFound].map((is) => is(impostor)),
    ).toEqual([false, false, false, false]);
  });
});

describe('listJson leaves nothing behind', () => {
  it('closes the subscription of each listing (each left one open, taking every message its consumer sent)', async () => {
    for (let i = 0; i < 300; i++) await createJson(bus.objects, `Leak.ns.k-${i}`, { i });
    // The connection's own table of subscriptions (nats.js keeps no public count).
    const subscriptions = () =>
      (bus.nc as unknown as { protocol: { subscriptions: { size(): number } } }).protocol.subscriptions.size();
    const before = subscriptions();
    for (let round = 0; round < 10; round++) {
      const snap = await listJson<{ i: number }>(bus.js, bus.names.objectsBucket, 'Leak.>');
      expect(snap.items).toHaveLength(300);
    }
    await eventually(() => (subscriptions() === before ? true : undefined), 5000, 'every listing subscription closed');
  });
});

describe('listJson under load', () => {
  it('ends while writers keep writing to the listed keys', async () => {
    for (let i = 0; i < 200; i++)
      await bus.objects.put(`Busy.ns.k-${i}`, new TextEncoder().encode(JSON.stringify({ i, v: 0 })));
    let writing = true;
    const writer = (async () => {
      for (let v = 1; writing; v++)
        await bus.objects.put(`Busy.ns.k-${v % 200}`, new TextEncoder().encode(JSON.stringify({ i: v % 200, v })));
    })();
    try {
      for (let round = 0; round < 5; round++) {
        const snap = await listJson<{ i: number }>(bus.js, bus.names.objectsBucket, 'Busy.>');
        expect(new Set(snap.items.map((x) => x.value.i)).size).toBe(200);
      }
    } finally {
      writing = false;
      await writer;
    }
  });
});

/**
 * A consumer that orders the `<prefix>-lead…` events before the later `<prefix>-fol…` ones and records the events of
 * `<prefix>` it handled; it holds `<prefix>-0` (a slow leader) until `openGate`.
 */
async function acrossConsumer(prefix: string, o: { durable: string; concurrency: number; maxWaitMs?: number }) {
  const handled: string[] = [];
  let openGate!: () => void;
  const gate = new Promise<void>((r) => (openGate = r));
  const mine = (d: DeliveredEvent) => d.event.flotillaname.startsWith(`${prefix}-`);
  const sub = await consumeEvents(bus, {
    durable: o.durable,
    filter: { kind: 'Deployment' },
    concurrency: o.concurrency,
    orderKey: (d) => d.event.flotillaname,
    orderAcross: {
      leads: (d) => d.event.flotillaname.startsWith(`${prefix}-lead`),
      follows: (d) => d.event.flotillaname.startsWith(`${prefix}-fol`),
      maxWaitMs: o.maxWaitMs,
    },
    handler: async (d) => {
      if (!mine(d)) return;
      if (d.event.id === `${prefix}-0`) await gate;
      handled.push(d.event.id);
    },
    handleBatch: async (ds) => {
      for (const d of ds) if (mine(d)) handled.push(d.event.id);
    },
  });
  return { handled, openGate, sub };
}

describe('events', () => {
  it('drops a re-published event with the same id', async () => {
    const first = await publishEvent(bus, ev('dedupe', 'fixed-id-1'));
    const again = await publishEvent(bus, ev('dedupe', 'fixed-id-1'));
    expect(first.duplicate).toBe(false);
    expect(again.duplicate).toBe(true);
    expect(again.seq).toBe(first.seq);
    const read: DeliveredEvent[] = [];
    for await (const d of readEvents(bus, { filter: { kind: 'Deployment', namespace: 'default', name: 'dedupe' } }))
      read.push(d);
    expect(read.map((d) => d.event.id)).toEqual(['fixed-id-1']);
  });

  it('redelivers an event whose consumer died before acknowledging it', async () => {
    await publishEvent(bus, ev('crash'));
    const seen: DeliveredEvent[] = [];
    // First consumer "crashes": it never resolves its handler, then goes away without an ack.
    const crashed = await consumeEvents(bus, {
      durable: 'crashy',
      filter: { name: 'crash' },
      ackWaitMs: 500,
      handler: (d) => {
        seen.push(d);
        return new Promise(() => undefined);
      },
    });
    await eventually(() => (seen.length > 0 ? true : undefined), 5000, 'first delivery');
    void crashed.stop();
    const second: DeliveredEvent[] = [];
    const sub = await consumeEvents(bus, {
      durable: 'crashy',
      filter: { name: 'crash' },
      ackWaitMs: 500,
      handler: async (d) => {
        second.push(d);
      },
    });
    await eventually(() => (second.length > 0 ? true : undefined), 10_000, 'redelivery');
    await sub.stop();
    expect(second[0]!.event.flotillaname).toBe('crash');
    expect(second[0]!.deliveryCount).toBeGreaterThan(1);
  });

  it('handles keys in parallel but each key in stream order, retrying a failed event before its key goes on', async () => {
    const names = ['ord-a', 'ord-b', 'ord-a', 'ord-c', 'ord-a', 'ord-b'];
    for (const [i, n] of names.entries()) await publishEvent(bus, ev(n, `ord-${i}`));
    const handled: Array<{ name: string; seq: number }> = [];
    let failuresLeft = 2;
    const errors: number[] = [];
    const sub = await consumeEvents(bus, {
      durable: 'ordered',
      filter: { kind: 'Deployment' },
      concurrency: 8,
      retryDelayMs: 20,
      orderKey: (d) => d.event.flotillaname,
      onError: (_err, d) => errors.push(d.seq),
      handler: async (d) => {
        if (!d.event.flotillaname.startsWith('ord-')) return;
        // The first event of ord-a fails twice, and is slow: ord-b and ord-c must not wait for it.
        if (d.event.id === 'ord-0' && failuresLeft-- > 0) throw new Error('transient');
        if (d.event.id === 'ord-0') await new Promise((r) => setTimeout(r, 50));
        handled.push({ name: d.event.flotillaname, seq: d.seq });
      },
    });
    await eventually(() => (handled.length === names.length ? true : undefined), 10_000, 'every event handled');
    await sub.stop();
    const seqsOf = (n: string) => handled.filter((h) => h.name === n).map((h) => h.seq);
    for (const n of ['ord-a', 'ord-b', 'ord-c']) expect(seqsOf(n)).toEqual([...seqsOf(n)].sort((x, y) => x - y));
    expect(seqsOf('ord-a')).toHaveLength(3);
    expect(errors).toHaveLength(2);
    expect(handled.findIndex((h) => h.name === 'ord-b')).toBeLessThan(handled.findIndex((h) => h.name === 'ord-a'));
  });

  it('hands the events of a key that waited together to handleBatch in stream order, and a failed batch event by event', async () => {
    await publishEvent(bus, ev('bat-a', 'bat-0'));
    const batches: string[][] = [];
    const alone: string[] = [];
    let openGate!: () => void;
    const gate = new Promise<void>((r) => (openGate = r));
    const sub = await consumeEvents(bus, {
      durable: 'batched',
      filter: { kind: 'Deployment' },
      concurrency: 8,
      retryDelayMs: 20,
      orderKey: (d) => d.event.flotillaname,
      handler: async (d) => {
        if (!d.event.flotillaname.startsWith('bat-')) return;
        alone.push(d.event.id);
        // bat-a's first event holds its key: the key's next events wait behind it, together
        if (d.event.id === 'bat-0') await gate;
      },
      handleBatch: async (ds) => {
        const ids = ds.filter((d) => d.event.flotillaname.startsWith('bat-')).map((d) => d.event.id);
        if (ids.length === 0) return;
        batches.push(ids);
        throw new Error('a batch failing: its events are handled again one at a time');
      },
    });
    try {
      await eventually(() => (alone.includes('bat-0') ? true : undefined), 10_000, 'the first event under way');
      for (const [i, n] of ['bat-a', 'bat-a', 'bat-a', 'bat-b'].entries())
        await publishEvent(bus, ev(n, `bat-${i + 1}`));
      // bat-b's event came after bat-a's three in the stream: once it is handled they are all waiting
      await eventually(() => (alone.includes('bat-4') ? true : undefined), 10_000, "bat-b's event handled");
      openGate();
      await eventually(() => (alone.includes('bat-3') ? true : undefined), 10_000, 'every event handled');
    } finally {
      openGate();
      await sub.stop();
    }
    expect(batches).toEqual([['bat-1', 'bat-2', 'bat-3']]);
    expect(alone).toEqual(['bat-0', 'bat-4', 'bat-1', 'bat-2', 'bat-3']);
    const info = await bus.jsm.consumers.info(bus.names.eventsStream, 'batched');
    expect(info.num_ack_pending).toBe(0);
  });

  it('orderAcross: a following event waits for the leading events before it, of any key, without taking their places', async () => {
    // Fewer places than held events: held ones must not take them, or the leader would never run.
    const { handled, openGate, sub } = await acrossConsumer('acr', { durable: 'across', concurrency: 2 });
    try {
      // acr-0 leads and is slow; the followers after it wait; acr-4 (another key, not following) does not; acr-5 is
      // of a follower's key, so it waits behind that key's held event; acr-6 follows, but no leader is before it.
      const events = [
        ['acr-lead-1', 'acr-0'],
        ['acr-fol-a', 'acr-1'],
        ['acr-fol-b', 'acr-2'],
        ['acr-fol-c', 'acr-3'],
        ['acr-other', 'acr-4'],
        ['acr-fol-a', 'acr-5'],
      ] as const;
      for (const [n, id] of events) await publishEvent(bus, ev(n, id));
      await eventually(() => (handled.includes('acr-4') ? true : undefined), 10_000, 'the event no leader holds');
      expect(handled).toEqual(['acr-4']);
      openGate();
      await eventually(() => (handled.length === 6 ? true : undefined), 10_000, 'every event handled');
      expect(handled.indexOf('acr-0')).toBeLessThan(
        Math.min(...['acr-1', 'acr-2', 'acr-3'].map((id) => handled.indexOf(id))),
      );
      expect(handled.indexOf('acr-1')).toBeLessThan(handled.indexOf('acr-5'));
      await publishEvent(bus, ev('acr-fol-d', 'acr-6'));
      await eventually(
        () => (handled.includes('acr-6') ? true : undefined),
        10_000,
        'a follower with no leader before it',
      );
    } finally {
      openGate();
      await sub.stop();
    }
    const info = await bus.jsm.consumers.info(bus.names.eventsStream, 'across');
    expect(info.num_ack_pending).toBe(0);
  });

  it('orderAcross: a leading event that takes longer than maxWaitMs holds the followers no longer', async () => {
    // The leader does not end (a fold failing and retried, say) until the test lets it.
    const { handled, openGate, sub } = await acrossConsumer('acb', {
      durable: 'across-bound',
      concurrency: 4,
      maxWaitMs: 300,
    });
    try {
      await publishEvent(bus, ev('acb-lead-1', 'acb-0'));
      const followerSent = Date.now();
      await publishEvent(bus, ev('acb-fol-a', 'acb-1'));
      await eventually(
        () => (handled.includes('acb-1') ? true : undefined),
        10_000,
        'the follower, once the hold ran out',
      );
      expect(Date.now() - followerSent).toBeGreaterThanOrEqual(250);
      expect(handled).toEqual(['acb-1']);
    } finally {
      openGate();
      await sub.stop();
    }
  });

  it('handles an event that may not join a batch alone, between the batches before and after it', async () => {
    await publishEvent(bus, ev('cut-a', 'cut-0'));
    const batches: string[][] = [];
    const alone: string[] = [];
    let openGate!: () => void;
    const gate = new Promise<void>((r) => (openGate = r));
    const sub = await consumeEvents(bus, {
      durable: 'batched-cut',
      filter: { kind: 'Deployment' },
      concurrency: 8,
      orderKey: (d) => d.event.flotillaname,
      batchable: (d) => !d.event.id.endsWith('-x'),
      handler: async (d) => {
        if (!d.event.flotillaname.startsWith('cut-')) return;
        alone.push(d.event.id);
        if (d.event.id === 'cut-0') await gate;
      },
      handleBatch: async (ds) => {
        const ids = ds.filter((d) => d.event.flotillaname.startsWith('cut-')).map((d) => d.event.id);
        if (ids.length) batches.push(ids);
      },
    });
    try {
      await eventually(() => (alone.includes('cut-0') ? true : undefined), 10_000, 'the first event under way');
      for (const id of ['cut-1', 'cut-2', 'cut-3-x', 'cut-4', 'cut-5']) await publishEvent(bus, ev('cut-a', id));
      await publishEvent(bus, ev('cut-b', 'cut-6'));
      await eventually(() => (alone.includes('cut-6') ? true : undefined), 10_000, "cut-b's event handled");
      openGate();
      await eventually(() => (batches.length === 2 ? true : undefined), 10_000, 'both batches');
    } finally {
      openGate();
      await sub.stop();
    }
    expect(batches).toEqual([
      ['cut-1', 'cut-2'],
      ['cut-4', 'cut-5'],
    ]);
    expect(alone).toEqual(['cut-0', 'cut-6', 'cut-3-x']);
  });

  it.each([
    ['an exclusive consumer', true],
    ['a shared durable consumer', false],
  ])(
    '%s deleted under its subscription is created again, and the events after it are handled',
    async (_, exclusive) => {
      const durable = exclusive ? 'deleted-exclusive' : 'deleted-shared';
      const name = `${durable}-w`;
      await publishEvent(bus, ev(name, `${durable}-0`));
      const handled: string[] = [];
      const ended: unknown[] = [];
      const sub = await consumeEvents(bus, {
        durable,
        filter: { name },
        exclusive,
        onSessionEnded: (err) => ended.push(err),
        handler: async (d) => {
          handled.push(d.event.id);
        },
      });
      try {
        await eventually(() => (handled.length === 1 ? true : undefined), 5000, 'the first event');
        // Deleted from outside (by hand, or a server that lost it): the session cannot go on with it.
        await bus.jsm.consumers.delete(bus.names.eventsStream, durable);
        await eventually(() => (ended.length > 0 ? true : undefined), 10_000, 'the session told to have ended');
        await publishEvent(bus, ev(name, `${durable}-1`));
        await eventually(() => (handled.includes(`${durable}-1`) ? true : undefined), 10_000, 'the event after it');
        // Events are handled at least once: the consumer created anew may hand the first one again.
        expect([...new Set(handled)]).toEqual([`${durable}-0`, `${durable}-1`]);
      } finally {
        await sub.stop();
      }
    },
  );

  it('a consumer whose stream is gone reports each failed re-creation, and resumes once the stream is back', async () => {
    // A bus of its own: its events stream is deleted under the subscription, as a NATS that lost its data does.
    const lossy = await testBus('stream-gone');
    const handled: string[] = [];
    const ended: unknown[] = [];
    const reopenFailures: unknown[] = [];
    const sub = await consumeEvents(lossy, {
      durable: 'stream-gone',
      exclusive: true,
      retryDelayMs: 50,
      onSessionEnded: (err) => ended.push(err),
      onReopenFailed: (err) => reopenFailures.push(err),
      handler: async (d) => {
        handled.push(d.event.id);
      },
    });
    try {
      await publishEvent(lossy, ev('gone', 'gone-0'));
      await eventually(() => (handled.length === 1 ? true : undefined), 5000, 'the first event');
      await lossy.jsm.streams.delete(lossy.names.eventsStream);
      await eventually(() => (reopenFailures.length > 0 ? true : undefined), 10_000, 'a failed re-creation told');
      expect(ended).toHaveLength(1);
      // The stream comes back (a service's repair makes it again), empty: what is published now is handled.
      await ensureEventsStream(lossy.jsm, lossy.names);
      await publishEvent(lossy, ev('gone', 'gone-1'));
      await eventually(() => (handled.includes('gone-1') ? true : undefined), 10_000, 'the event after the loss');
    } finally {
      await sub.stop();
      await lossy.dispose();
    }
  });

  it('an exclusive consumer hands over in stream order: the next one starts after the last acknowledged event', async () => {
    for (let i = 0; i < 3; i++) await publishEvent(bus, ev('handover', `handover-${i}`));
    const first: string[] = [];
    let release: (() => void) | undefined;
    const sub = await consumeEvents(bus, {
      durable: 'handover',
      filter: { name: 'handover' },
      exclusive: true,
      handler: async (d) => {
        first.push(d.event.id);
        if (d.event.id === 'handover-0') await new Promise<void>((r) => (release = r));
      },
    });
    await eventually(() => (first.length === 1 && release ? true : undefined), 5000, 'the first event in its handler');
    const stopped = sub.stop();
    release!();
    await stopped;
    expect(first).toEqual(['handover-0']);
    const second: string[] = [];
    const next = await consumeEvents(bus, {
      durable: 'handover',
      filter: { name: 'handover' },
      exclusive: true,
      handler: async (d) => {
        second.push(d.event.id);
      },
    });
    await eventually(() => (second.length === 2 ? true : undefined), 10_000, 'the rest, redelivered');
    await next.stop();
    expect(second).toEqual(['handover-1', 'handover-2']);
  });

  it('a key stuck retrying holds back only its own events, and those are handled once though their ack wait passes', async () => {
    const names = ['stuck-x', 'stuck-x', 'stuck-x', 'stuck-y'];
    for (const [i, n] of names.entries()) await publishEvent(bus, ev(n, `stuck-${i}`));
    const handled: string[] = [];
    const firstAttempt = Date.now();
    const sub = await consumeEvents(bus, {
      durable: 'stuck',
      filter: { kind: 'Deployment' },
      concurrency: 2,
      ackWaitMs: 1000,
      retryDelayMs: 100,
      orderKey: (d) => d.event.flotillaname,
      handler: async (d) => {
        if (!d.event.flotillaname.startsWith('stuck-')) return;
        // The first event of stuck-x fails for 2.5 s, past the others' ack wait.
        if (d.event.id === 'stuck-0' && Date.now() - firstAttempt < 2500) throw new Error('not yet');
        handled.push(d.event.id);
      },
    });
    await eventually(
      () => (handled.includes('stuck-3') ? true : undefined),
      2000,
      'stuck-y handled while stuck-x waits',
    );
    expect(handled).toEqual(['stuck-3']);
    await eventually(() => (handled.length >= 4 ? true : undefined), 10_000, 'stuck-x handled');
    // Every delivery, redeliveries past the ack wait included, acknowledged: none is left to be handled twice.
    await eventually(
      async () => {
        const info = await bus.jsm.consumers.info(bus.names.eventsStream, 'stuck');
        return info.num_ack_pending === 0 && info.num_pending === 0 ? true : undefined;
      },
      10_000,
      'the consumer with nothing pending or unacknowledged',
    );
    await sub.stop();
    expect(handled).toEqual(['stuck-3', 'stuck-0', 'stuck-1', 'stuck-2']);
  });

  it('an exclusive consumer lost between delete and re-create does not send the next holder back to the first event', async () => {
    const handled = (into: string[]) => async (d: DeliveredEvent) => void into.push(d.event.id);
    for (let i = 0; i < 3; i++) await publishEvent(bus, ev('gap', `gap-${i}`));
    const first: string[] = [];
    const a = await consumeEvents(bus, {
      durable: 'gap',
      filter: { name: 'gap' },
      exclusive: true,
      handler: handled(first),
    });
    await eventually(() => (first.length === 3 ? true : undefined), 5000, 'the first three');
    await a.stop();
    // The next holder records where it starts, recreates the consumer, handles one more event and stops.
    const second: string[] = [];
    const b = await consumeEvents(bus, {
      durable: 'gap',
      filter: { name: 'gap' },
      exclusive: true,
      handler: handled(second),
    });
    await publishEvent(bus, ev('gap', 'gap-3'));
    await eventually(() => (second.length === 1 ? true : undefined), 5000, 'the fourth');
    await b.stop();
    // A third dies after deleting the consumer and before creating it again.
    await bus.jsm.consumers.delete(bus.names.eventsStream, 'gap');
    const third: string[] = [];
    const c = await consumeEvents(bus, {
      durable: 'gap',
      filter: { name: 'gap' },
      exclusive: true,
      handler: handled(third),
    });
    await eventually(() => (third.length >= 1 ? true : undefined), 5000, 'a redelivery');
    await new Promise((r) => setTimeout(r, 300));
    await c.stop();
    expect(first).toEqual(['gap-0', 'gap-1', 'gap-2']);
    expect(second).toEqual(['gap-3']);
    // From where the second started, not from gap-0: gap-3 again (folds are idempotent), nothing older.
    expect(third).toEqual(['gap-3']);
  });

  it('gives an event up after maxDeliver failed attempts and goes on', async () => {
    await publishEvent(bus, ev('poison', 'poison-1'));
    await publishEvent(bus, ev('poison', 'poison-2'));
    const attempts: string[] = [];
    const sub = await consumeEvents(bus, {
      durable: 'poisoned',
      filter: { name: 'poison' },
      maxDeliver: 3,
      retryDelayMs: 10,
      handler: async (d) => {
        attempts.push(d.event.id);
        if (d.event.id === 'poison-1') throw new Error('never works');
      },
    });
    await eventually(() => (attempts.includes('poison-2') ? true : undefined), 10_000, 'the next event');
    await sub.stop();
    expect(attempts).toEqual(['poison-1', 'poison-1', 'poison-1', 'poison-2']);
  });

  it('ends a read that matches nothing', async () => {
    const out = [];
    for await (const d of readEvents(bus, { filter: { kind: 'Nope' } })) out.push(d);
    expect(out).toEqual([]);
  });

  it('ends a followed read aborted while its consumer was still being opened', async () => {
    // The gateway's stop aborts every open event stream; one that a dashboard tab had just reconnected was still
    // opening its consumer, and followed on for ever, so the gateway's HTTP server never closed. (Nothing matches
    // the filter: only the abort can end the read.)
    const abort = new AbortController();
    const read = readEvents(bus, { filter: { kind: 'Nope' }, follow: true, signal: abort.signal });
    const first = read.next();
    abort.abort();
    expect(await first).toEqual({ done: true, value: undefined });
  });
});

describe('connectBus', () => {
  it('fails with BusUnavailableError naming the server when NATS is unreachable', async () => {
    await expect(connectBus({ url: 'nats://127.0.0.1:1', connectTimeoutMs: 500 })).rejects.toThrow(BusUnavailableError);
    await expect(connectBus({ url: 'nats://u:secret@127.0.0.1:1', connectTimeoutMs: 500 })).rejects.toThrow(
      /127\.0\.0\.1:1/,
    );
    await expect(connectBus({ url: 'nats://u:secret@127.0.0.1:1', connectTimeoutMs: 500 })).rejects.not.toThrow(
      /secret/,
    );
  });
});
